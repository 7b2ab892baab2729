/**
 * How the collector's spools read back as the result's lists: equity rows and curves, price samples,
 * and the result object whose lists are built only when read.
 */
import type { EquityPoint } from './metrics.js';
import type { BacktestResult } from './result.js';
import type { EquityRow } from './resultStreams.js';
import type { NumberSpool } from './spool.js';

/**
 * The result with its fields in this order; a function's field is built from it when first read
 * (and kept), so a result nobody reads whole never holds its lists.
 */
export function lazyResult(fields: readonly (readonly [keyof BacktestResult, unknown])[]): BacktestResult {
  const r: Record<string, unknown> = {};
  for (const [k, v] of fields) {
    if (typeof v !== 'function') {
      r[k] = v;
      continue;
    }
    let built: unknown;
    let done = false;
    Object.defineProperty(r, k, {
      enumerable: true,
      configurable: true,
      get: () => {
        if (!done) {
          built = (v as () => unknown)();
          done = true;
        }
        return built;
      },
    });
  }
  return r as unknown as BacktestResult;
}

/** Column `col` of an equity spool as curve points. */
export function* curveOf(spool: NumberSpool, col: number): Generator<EquityPoint> {
  const w = spool.width;
  for (const { data, rows } of spool.chunks()) for (let r = 0; r < rows; r++) yield { t: data[r * w] as number, equity: data[r * w + col] as number };
}

/**
 * An equity spool's rows as the result lists them. Each row's values are copied by a loop: a
 * subarray view per row, for Array.from to read, costs ~1.8 µs a row (V8 makes typed array views
 * slowly), ~20 times the copy, and a report reads every row several times (a day: 86,400 rows).
 */
export function* equityRowsOf(spool: NumberSpool): Generator<EquityRow> {
  const w = spool.width;
  for (const { data, rows } of spool.chunks()) {
    for (let r = 0; r < rows; r++) {
      const at = r * w;
      const v: number[] = [];
      for (let k = at + 1; k < at + w; k++) v.push(data[k] as number);
      yield { t: data[at] as number, v };
    }
  }
}

/** A price spool's samples. */
export function* pricesOf(spool: NumberSpool | undefined): Generator<{ t: number; p: number }> {
  if (spool === undefined) return;
  for (const { data, rows } of spool.chunks()) for (let r = 0; r < rows; r++) yield { t: data[2 * r] as number, p: data[2 * r + 1] as number };
}

/** The first of `xs`, or undefined. */
export function firstOf(xs: Iterable<number>): number | undefined {
  for (const x of xs) return x;
  return undefined;
}
