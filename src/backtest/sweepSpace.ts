/**
 * The values a sweep tries: a parameter's list as given, or a range expanded in exact decimal
 * steps (0.1 + 0.2 is 0.3 here, so a range never drifts past its end or misses it); and a seeded
 * random draw of distinct points from a grid too large to run whole, without enumerating it.
 */
import { Decimal } from '../core/decimal.js';
import { mulberry32 } from '../core/random.js';

/** A range as a grid file gives it: from, from + step, ... up to `to` inclusive. */
export interface ParamRange {
  readonly from: number | string;
  readonly to: number | string;
  readonly step: number | string;
}

/** Most values one range may give (a typo in a step should not start a million runs). */
export const MAX_RANGE_VALUES = 10_000;

/** The values of a list or a range. A range of numbers gives numbers; one with a quoted bound gives decimal strings. */
export function paramValues(spec: readonly unknown[] | ParamRange): unknown[] {
  if (Array.isArray(spec)) return [...(spec as readonly unknown[])];
  const r = spec as ParamRange;
  const from = new Decimal(r.from);
  const to = new Decimal(r.to);
  const step = new Decimal(r.step);
  if (!step.gt(0)) throw new RangeError(`step ${String(r.step)} must be above 0`);
  if (from.gt(to)) throw new RangeError(`from ${String(r.from)} is above to ${String(r.to)}`);
  const n = to.minus(from).div(step).floor().toNumber() + 1;
  if (n > MAX_RANGE_VALUES) throw new RangeError(`${n} values, more than ${MAX_RANGE_VALUES}`);
  const asText = typeof r.from === 'string' || typeof r.to === 'string' || typeof r.step === 'string';
  return Array.from({ length: n }, (_, i) => {
    const v = from.plus(step.mul(i));
    return asText ? v.toFixed() : v.toNumber();
  });
}

/**
 * `samples` distinct points of the cartesian product of `values` (keys in order), drawn uniformly
 * with a seeded generator, in the order drawn; all points when there are no more than that.
 */
export function randomPoints(values: readonly (readonly [string, readonly unknown[]])[], samples: number, seed: number): Record<string, unknown>[] {
  const total = values.reduce((n, [, v]) => n * v.length, 1);
  const rnd = mulberry32(seed);
  const picked = new Set<number>();
  const out: Record<string, unknown>[] = [];
  const want = Math.min(samples, total);
  while (out.length < want) {
    // Past half the space, rejection would spin: take the indices not yet picked, in order, instead.
    const i = picked.size * 2 > total ? [...Array(total).keys()].find((k) => !picked.has(k)) ?? 0 : Math.floor(rnd() * total);
    if (picked.has(i)) continue;
    picked.add(i);
    let rest = i;
    const point: Record<string, unknown> = {};
    for (let k = values.length - 1; k >= 0; k--) {
      const [name, vs] = values[k] as readonly [string, readonly unknown[]];
      point[name] = vs[rest % vs.length];
      rest = Math.floor(rest / vs.length);
    }
    out.push(Object.fromEntries(values.map(([name]) => [name, point[name]])));
  }
  return out;
}
