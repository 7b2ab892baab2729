/**
 * The trade statistics of a tearsheet, per strategy: from its round trips (win rate, profit factor,
 * expectancy, average win and loss, the longest losing streak, holding time), its fills (exposure:
 * the share of the run it held a position) and its equity (CAGR where the run is long enough to
 * compound), with buy-and-hold of its first symbol over the same span as the benchmark. Descriptive
 * floats over exact amounts; a figure that cannot be had is null with its reason, never 0.
 */
import { Decimal } from '../core/decimal.js';
import { BIG_ZERO, bigCmp, bigDiv, bigNeg, bigPlus, bigToNumber, type BigDec } from '../core/bigDecimal.js';
import { bigAmountText, bigOfText, bigText } from '../core/bigDecimalText.js';
import { drawdownPeriods } from './drawdowns.js';
import { periodReturns, roundStat, type EquityPoint } from './metrics.js';
import { returnDistribution } from './returnDistribution.js';
import { rollingSharpe } from './rollingSharpe.js';
import { HoldingTimes } from './holdingTimes.js';
import { monthlyReturns } from './monthlyReturns.js';
import { PerSymbolBuilder, positionChange } from './perSymbol.js';
import type { ReportFill, RoundTrip, StrategyMetrics, TradeStats } from './result.js';

/** Shortest run whose CAGR is given: compounding a few days' return to a year says nothing. */
export const MIN_CAGR_SPAN_MS = 30 * 86_400_000;

const YEAR_MS = 365 * 86_400_000;

function mean(sum: BigDec, n: number): string | null {
  return n === 0 ? null : bigAmountText(bigDiv(sum, { m: BigInt(n), e: 0 }));
}

/** An equity curve (readable more than once) and its sampling interval (ms). */
export interface EquityCurve {
  readonly curve: Iterable<EquityPoint>;
  readonly intervalMs: number;
}

/** CAGR over the deepest drawdown (both percent); null with its reason when either is missing. */
function calmar(cagrPct: number | null, cagrNote: string | undefined, maxDrawdownPct: number): Pick<TradeStats, 'calmar' | 'calmarNote'> {
  if (cagrPct === null) return { calmar: null, calmarNote: `no CAGR: ${cagrNote ?? ''}` };
  if (!(maxDrawdownPct > 0)) return { calmar: null, calmarNote: 'equity never fell' };
  return { calmar: roundStat(cagrPct / maxDrawdownPct) };
}

/** Time a strategy held a non-zero position in some symbol, from its fills one at a time. */
class Exposure {
  readonly #pos = new Map<string, BigDec>();
  #open = 0;
  #since: number;
  #total = 0;

  constructor(start: number) {
    this.#since = start;
  }

  fill(f: ReportFill, change: BigDec): void {
    const before = this.#pos.get(f.symbol) ?? BIG_ZERO;
    const after = bigPlus(before, change);
    this.#pos.set(f.symbol, after);
    const wasOpen = this.#open > 0;
    if (before.m === 0n && after.m !== 0n) this.#open++;
    else if (before.m !== 0n && after.m === 0n) this.#open--;
    if (!wasOpen && this.#open > 0) this.#since = f.t;
    else if (wasOpen && this.#open === 0) this.#total += f.t - this.#since;
  }

  /** Milliseconds held up to `end` (a position still open counts until then). */
  until(end: number): number {
    return this.#open > 0 ? this.#total + end - this.#since : this.#total;
  }
}

/** Time (ms) within [start, end] that the strategy held a non-zero position in some symbol. */
export function exposureMs(fills: Iterable<ReportFill>, start: number, end: number): number {
  const e = new Exposure(start);
  for (const f of fills) e.fill(f, positionChange(f));
  return e.until(end);
}

/**
 * The trade statistics of one strategy built in one pass: its fills and its round trips given as
 * they come (each in order: sums are taken in that order, so the figures are those of the whole
 * lists), nothing kept but the sums.
 */
export class TradeStatsBuilder {
  readonly #exposure: Exposure;
  #n = 0;
  #wins = 0;
  #losses = 0;
  #all = BIG_ZERO;
  #grossWin = BIG_ZERO;
  #lossSum = BIG_ZERO;
  #largestWin: BigDec | undefined;
  #largestLoss: BigDec | undefined;
  #streak = 0;
  #maxStreak = 0;
  #held = 0;
  #heldWins = 0;
  #heldLosses = 0;
  readonly #holding = new HoldingTimes();
  readonly #symbols: PerSymbolBuilder;

  constructor(readonly span: { readonly start: number; readonly end: number }) {
    this.#exposure = new Exposure(span.start);
    this.#symbols = new PerSymbolBuilder(span);
  }

  /** A fill, with the change it makes to the position when the caller has it. */
  fill(f: ReportFill, change: BigDec = positionChange(f)): void {
    this.#exposure.fill(f, change);
    this.#symbols.fill(f, change);
  }

  /** A closed round trip; `pnl` is its PnL's value when the caller has it (else read from its text). */
  trip(t: RoundTrip, p: BigDec = bigOfText(t.pnl)): void {
    this.#n++;
    this.#all = bigPlus(this.#all, p);
    const sign = p.m > 0n ? 1 : p.m < 0n ? -1 : 0;
    if (sign > 0) {
      this.#wins++;
      this.#grossWin = bigPlus(this.#grossWin, p);
      if (this.#largestWin === undefined || bigCmp(p, this.#largestWin) > 0) this.#largestWin = p;
    } else if (sign < 0) {
      this.#losses++;
      this.#lossSum = bigPlus(this.#lossSum, p);
      if (this.#largestLoss === undefined || bigCmp(p, this.#largestLoss) < 0) this.#largestLoss = p;
    }
    this.#streak = sign < 0 ? this.#streak + 1 : 0;
    if (this.#streak > this.#maxStreak) this.#maxStreak = this.#streak;
    const held = t.exitT - t.entryT;
    this.#held += held;
    if (sign > 0) this.#heldWins += held;
    else if (sign < 0) this.#heldLosses += held;
    this.#holding.add(held, sign);
    this.#symbols.trip(t, p);
  }

  /**
   * The figures, with the strategy's metrics, the first and last mark of its first symbol, and its
   * equity curve (read four times: drawdown periods, per-period returns, monthly returns, rolling Sharpe).
   */
  stats(m: StrategyMetrics, firstSymbol: string | undefined, marks: { readonly first: number | undefined; readonly last: number | undefined }, equity: EquityCurve): TradeStats {
    const n = this.#n;
    const grossLoss = bigNeg(this.#lossSum);
    const { start, end } = this.span;
    const ms = end - start;
    const init = new Decimal(m.initialEquity);
    const fin = new Decimal(m.finalEquity);
    let cagrPct: number | null = null;
    let cagrNote: string | undefined;
    if (ms < MIN_CAGR_SPAN_MS) cagrNote = `run spans ${(ms / 86_400_000).toFixed(1)} days, under ${MIN_CAGR_SPAN_MS / 86_400_000}: not compounded to a year`;
    else if (!init.gt(0) || !fin.gt(0)) cagrNote = 'equity not positive at the start or the end';
    else cagrPct = roundStat((Math.pow(fin.div(init).toNumber(), YEAR_MS / ms) - 1) * 100);
    const { first, last } = marks;
    const dd = drawdownPeriods(equity.curve);
    const rets = periodReturns(equity.curve, equity.intervalMs);
    return {
      roundTrips: n,
      wins: this.#wins,
      losses: this.#losses,
      winRatePct: n === 0 ? null : roundStat((this.#wins / n) * 100),
      profitFactor: grossLoss.m === 0n ? null : roundStat(bigToNumber(bigDiv(this.#grossWin, grossLoss))),
      expectancy: mean(this.#all, n),
      avgWin: mean(this.#grossWin, this.#wins),
      avgLoss: mean(this.#lossSum, this.#losses),
      largestWin: this.#largestWin === undefined ? null : bigText(this.#largestWin),
      largestLoss: this.#largestLoss === undefined ? null : bigText(this.#largestLoss),
      maxConsecutiveLosses: this.#maxStreak,
      avgHoldingMs: n === 0 ? null : Math.round(this.#held / n),
      avgWinHoldingMs: this.#wins === 0 ? null : Math.round(this.#heldWins / this.#wins),
      avgLossHoldingMs: this.#losses === 0 ? null : Math.round(this.#heldLosses / this.#losses),
      holdingTimes: this.#holding.buckets(),
      exposurePct: ms <= 0 ? 0 : roundStat((this.#exposure.until(end) / ms) * 100),
      cagrPct,
      ...(cagrNote !== undefined ? { cagrNote } : {}),
      ...calmar(cagrPct, cagrNote, m.maxDrawdownPct),
      longestDrawdownMs: dd.longestMs,
      drawdowns: dd.worst,
      returns: returnDistribution(rets),
      monthlyReturns: monthlyReturns(equity.curve),
      rollingSharpe: rollingSharpe(rets, equity.curve, equity.intervalMs),
      symbols: this.#symbols.stats(),
      buyHoldReturnPct: first === undefined || last === undefined || first <= 0 ? null : roundStat((last / first - 1) * 100),
      buyHoldSymbol: firstSymbol,
    };
  }
}

/** The figures of one strategy from its round trips and fills (see {@link TradeStatsBuilder}). */
export function tradeStats(
  trips: Iterable<RoundTrip>,
  fills: Iterable<ReportFill>,
  m: StrategyMetrics,
  span: { start: number; end: number },
  firstSymbol: string | undefined,
  marks: { readonly first: number | undefined; readonly last: number | undefined },
  equity: EquityCurve,
): TradeStats {
  const b = new TradeStatsBuilder(span);
  for (const t of trips) b.trip(t);
  for (const f of fills) b.fill(f);
  return b.stats(m, firstSymbol, marks, equity);
}
