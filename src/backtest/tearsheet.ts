/**
 * The trade statistics of a tearsheet, per strategy: from its round trips (win rate, profit factor,
 * expectancy, average win and loss, the longest losing streak, holding time), its fills (exposure:
 * the share of the run it held a position) and its equity (CAGR where the run is long enough to
 * compound), with buy-and-hold of its first symbol over the same span as the benchmark. Descriptive
 * floats over exact amounts; a figure that cannot be had is null with its reason, never 0.
 */
import { Decimal, ZERO } from '../core/decimal.js';
import { roundStat } from './metrics.js';
import { amountText } from './roundTrips.js';
import type { ReportFill, RoundTrip, StrategyMetrics, TradeStats } from './result.js';

/** Shortest run whose CAGR is given: compounding a few days' return to a year says nothing. */
export const MIN_CAGR_SPAN_MS = 30 * 86_400_000;

const YEAR_MS = 365 * 86_400_000;

function mean(sum: Decimal, n: number): string | null {
  return n === 0 ? null : amountText(sum.div(n));
}

/** Time (ms) within [start, end] that the strategy held a non-zero position in some symbol. */
export function exposureMs(fills: Iterable<ReportFill>, start: number, end: number): number {
  const pos = new Map<string, Decimal>();
  let open = 0;
  let since = start;
  let total = 0;
  for (const f of fills) {
    const base = f.symbol.slice(0, f.symbol.indexOf('_'));
    let q = new Decimal(f.qty);
    if (f.side === 'BUY' && f.feeAsset === base) q = q.minus(f.fee);
    const before = pos.get(f.symbol) ?? ZERO;
    const after = f.side === 'BUY' ? before.plus(q) : before.minus(q);
    pos.set(f.symbol, after);
    const wasOpen = open > 0;
    if (before.isZero() && !after.isZero()) open++;
    else if (!before.isZero() && after.isZero()) open--;
    if (!wasOpen && open > 0) since = f.t;
    else if (wasOpen && open === 0) total += f.t - since;
  }
  if (open > 0) total += end - since;
  return total;
}

/**
 * The figures of one strategy, from its round trips and fills (each read once, in order: sums
 * taken in that order, so the figures are those of the whole lists) and the first and last mark of
 * its first symbol.
 */
export function tradeStats(
  trips: Iterable<RoundTrip>,
  fills: Iterable<ReportFill>,
  m: StrategyMetrics,
  span: { start: number; end: number },
  firstSymbol: string | undefined,
  marks: { readonly first: number | undefined; readonly last: number | undefined },
): TradeStats {
  let n = 0;
  let wins = 0;
  let losses = 0;
  let all = ZERO;
  let grossWin = ZERO;
  let lossSum = ZERO;
  let largestWin: Decimal | undefined;
  let largestLoss: Decimal | undefined;
  let streak = 0;
  let maxStreak = 0;
  let held = 0;
  for (const t of trips) {
    const p = new Decimal(t.pnl);
    n++;
    all = all.plus(p);
    if (p.gt(0)) {
      wins++;
      grossWin = grossWin.plus(p);
      if (largestWin === undefined || p.gt(largestWin)) largestWin = p;
    } else if (p.lt(0)) {
      losses++;
      lossSum = lossSum.plus(p);
      if (largestLoss === undefined || p.lt(largestLoss)) largestLoss = p;
    }
    streak = p.lt(0) ? streak + 1 : 0;
    if (streak > maxStreak) maxStreak = streak;
    held += t.exitT - t.entryT;
  }
  const grossLoss = lossSum.abs();
  const ms = span.end - span.start;
  const init = new Decimal(m.initialEquity);
  const fin = new Decimal(m.finalEquity);
  let cagrPct: number | null = null;
  let cagrNote: string | undefined;
  if (ms < MIN_CAGR_SPAN_MS) cagrNote = `run spans ${(ms / 86_400_000).toFixed(1)} days, under ${MIN_CAGR_SPAN_MS / 86_400_000}: not compounded to a year`;
  else if (!init.gt(0) || !fin.gt(0)) cagrNote = 'equity not positive at the start or the end';
  else cagrPct = roundStat((Math.pow(fin.div(init).toNumber(), YEAR_MS / ms) - 1) * 100);
  const { first, last } = marks;
  return {
    roundTrips: n,
    wins,
    losses,
    winRatePct: n === 0 ? null : roundStat((wins / n) * 100),
    profitFactor: grossLoss.isZero() ? null : roundStat(grossWin.div(grossLoss).toNumber()),
    expectancy: mean(all, n),
    avgWin: mean(grossWin, wins),
    avgLoss: mean(lossSum, losses),
    largestWin: largestWin === undefined ? null : largestWin.toFixed(),
    largestLoss: largestLoss === undefined ? null : largestLoss.toFixed(),
    maxConsecutiveLosses: maxStreak,
    avgHoldingMs: n === 0 ? null : Math.round(held / n),
    exposurePct: ms <= 0 ? 0 : roundStat((exposureMs(fills, span.start, span.end) / ms) * 100),
    cagrPct,
    ...(cagrNote !== undefined ? { cagrNote } : {}),
    buyHoldReturnPct: first === undefined || last === undefined || first <= 0 ? null : roundStat((last / first - 1) * 100),
    buyHoldSymbol: firstSymbol,
  };
}
