/**
 * How much of its in-sample performance a walk-forward keeps out of sample: the walk-forward
 * efficiency (Pardo) is the out-of-sample annualised return over the in-sample annualised return
 * of the point chosen there. Near 1 (or above) the choice carried over; near 0 or below it did not.
 * Returns are annualised simply (return x year / span, no compounding), so windows of different
 * lengths compare, and a day's 1 % is not compounded into a yearly 3,678 %. Also the stitched
 * out-of-sample equity: the windows' curves one after another, each window's growth carried into
 * the next. Descriptive floats: they decide no order.
 */
import type { CurvePoint } from './equityCurve.js';

const YEAR_MS = 365 * 86_400_000;

/** A return in percent over `spanMs`, annualised simply; null without a span. */
export function annualisedPct(returnPct: number, spanMs: number): number | null {
  return spanMs > 0 ? (returnPct * YEAR_MS) / spanMs : null;
}

/**
 * Out-of-sample over in-sample annualised return; null when either is missing or the in-sample
 * return is not above 0 (a ratio to a loss or to nothing reads backwards).
 */
export function efficiency(inSamplePct: number | null, outOfSamplePct: number | null): number | null {
  if (inSamplePct === null || outOfSamplePct === null || !(inSamplePct > 0)) return null;
  return outOfSamplePct / inSamplePct;
}

/**
 * The efficiency of the whole walk-forward: the windows' out-of-sample annualised returns summed
 * over their in-sample ones summed, over the windows that have both; null as for one window.
 */
export function overallEfficiency(windows: readonly { readonly inSamplePct: number | null; readonly outOfSamplePct: number | null }[]): number | null {
  let ins = 0;
  let outs = 0;
  let n = 0;
  for (const w of windows) {
    if (w.inSamplePct === null || w.outOfSamplePct === null) continue;
    ins += w.inSamplePct;
    outs += w.outOfSamplePct;
    n++;
  }
  return n === 0 ? null : efficiency(ins, outs);
}

/**
 * The windows' equity curves as one: the first starts at its own level, and each next one is
 * scaled so it starts where the previous ended (each window ran from the configured budget).
 * A window without a curve (it failed) is left out.
 */
export function stitchCurves(curves: readonly (readonly CurvePoint[] | undefined)[]): CurvePoint[] {
  const out: CurvePoint[] = [];
  let level: number | undefined;
  for (const c of curves) {
    const first = c?.[0];
    if (c === undefined || first === undefined || !(first.v > 0)) continue;
    const scale = level === undefined ? 1 : level / first.v;
    for (const p of c) out.push({ t: p.t, v: p.v * scale });
    level = (out[out.length - 1] as CurvePoint).v;
  }
  return out;
}
