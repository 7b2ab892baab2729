/**
 * What a parity run gives (each mode's place intents and fills, the live run's measures) and how
 * the modes are compared: the figures of a fill list, their gaps to the live run's, each figure's
 * tolerance (the goal, or the gap between two live runs when that is more) and the markdown table
 * the bench prints and the backtest README quotes.
 */
import { Decimal } from '../src/core/decimal.js';
import type { FillRecord } from '../src/store/records.js';

/** A strategy of the suite. `msParams` are parameters in ms of the run's clock (scaled by the speed in the backtest). */
export interface ParityCase {
  readonly name: string;
  readonly plugin: string;
  readonly params: Readonly<Record<string, unknown>>;
  readonly budget: Readonly<Record<string, string>>;
  readonly msParams?: readonly string[];
  /** Decisions that do not depend on timing: the bench holds paper's and the backtest's place intents to live's, exactly. */
  readonly sameIntents?: boolean;
}

/** A fill as every mode reports it (the ledger's fields), keyed by its order's place in the run. */
export type ParityFill = Pick<FillRecord, 'side' | 'price' | 'qty' | 'quoteQty' | 'commission' | 'commissionAsset' | 'isMaker'> & {
  readonly clientKey: string;
  /** Recording ms (receive time) at which its engine made it. */
  readonly at?: number;
};

/** What one mode did. */
export interface ModeOutcome {
  /** Place intents in order: side quantity@price. */
  readonly intents: string[];
  /** Recording time (receive ms) of each intent. */
  readonly placedAt: number[];
  readonly fills: ParityFill[];
}

/** Figures compared across modes (quote asset; base fees valued at their fill price). */
export interface Figures {
  readonly orders: number;
  readonly filledQty: number;
  readonly takerShare: number;
  readonly fees: number;
  readonly pnl: number;
  readonly turnover: number;
}

/** Net PnL at `mark` (cash flow + position x mark), fees, filled quantity and taker share of a fill list. */
export function figuresOf(o: ModeOutcome, mark: Decimal): Figures {
  let cash = new Decimal(0);
  let base = new Decimal(0);
  let fees = new Decimal(0);
  let qty = new Decimal(0);
  let taker = new Decimal(0);
  let turnover = new Decimal(0);
  for (const f of o.fills) {
    const baseFee = f.commissionAsset === 'BTC' ? f.commission : new Decimal(0);
    const quoteFee = f.commissionAsset === 'USDT' ? f.commission : new Decimal(0);
    if (f.side === 'BUY') {
      cash = cash.minus(f.quoteQty).minus(quoteFee);
      base = base.plus(f.qty).minus(baseFee);
    } else {
      cash = cash.plus(f.quoteQty).minus(quoteFee);
      base = base.minus(f.qty).minus(baseFee);
    }
    fees = fees.plus(quoteFee).plus(baseFee.mul(f.price));
    qty = qty.plus(f.qty);
    turnover = turnover.plus(f.quoteQty);
    if (!f.isMaker) taker = taker.plus(f.qty);
  }
  return {
    orders: o.intents.length,
    filledQty: qty.toNumber(),
    takerShare: qty.isZero() ? 0 : taker.div(qty).toNumber(),
    fees: fees.toNumber(),
    pnl: cash.plus(base.mul(mark)).toNumber(),
    turnover: turnover.toNumber(),
  };
}

/** One strategy's three runs. */
export interface ParityResult {
  readonly c: ParityCase;
  readonly live: ModeOutcome;
  readonly paper: ModeOutcome;
  readonly backtest: ModeOutcome;
  /** A second live run (`liveTwice`): how far two live runs of the same market differ. */
  readonly liveAgain?: ModeOutcome;
  /** Mark of every PnL: the backtest's mark at the window's end. */
  readonly mark: Decimal;
  /**
   * Measured in the live run (medians, wall ms): from the sandbox's engine applying a depth update (or
   * sending a trade) to the strategy getting it, from sending an order to the sandbox's engine booking it, and from there
   * to the acknowledgement reaching the run; and in recording ms what paper and the backtest used:
   * entry and cancel order by order (`entryMs` the entries' median, over `samples` orders), report the acknowledgement.
   */
  readonly measured: { readonly feedWallMs: number; readonly entryWallMs: number | undefined; readonly ackWallMs: number | undefined; readonly entryMs: number; readonly ackMs: number; readonly samples: number; readonly fillWallMs: number | undefined; readonly fillReplayMs: number | undefined; readonly streamHoldMs: number };
  /**
   * The live run's and the backtest's orders, each replayed through one engine fed as the
   * sandbox's at the replay points where they reached their engine (bench/parityReplay.ts): of the
   * orders with a fill, how many fill otherwise there. None: the engines agree given the same
   * orders, and a gap lies in the orders the strategy sent.
   */
  readonly engineCheck?: { readonly live: { differ: number; orders: number }; readonly backtest: { differ: number; orders: number } };
  /** Recording-time window (receive ms) every mode ran over: from the replay's snapshot to its end. */
  readonly window: { readonly startMs: number; readonly endMs: number };
}

/** The goal of every compared figure: within 10 % of the live run's. */
export const GOAL = 0.1;

/** Relative gap of `x` to `ref` (0 when both are 0). */
export function gap(x: number, ref: number): number {
  if (x === ref) return 0;
  return Math.abs(x - ref) / Math.max(Math.abs(ref), 1e-12);
}

/** The PnL gap in basis points of the reference's turnover (PnL near zero makes a relative gap meaningless). */
export function pnlGapBps(x: Figures, ref: Figures): number {
  return ref.turnover > 0 ? (Math.abs(x.pnl - ref.pnl) / ref.turnover) * 10_000 : 0;
}

const pct = (x: number): string => `${(x * 100).toFixed(1)}%`;
const num = (x: number, d = 6): string => x.toFixed(d).replace(/\.?0+$/, '') || '0';

/** Where the place intents of `a` start as a contiguous run of `b`'s (a run may join a moment late and miss the first ones); -1 when they are not one. */
export function contiguousAt(a: readonly string[], b: readonly string[]): number {
  if (a.length === 0) return 0;
  for (let i = 0; i + a.length <= b.length; i++) if (a.every((x, j) => b[i + j] === x)) return i;
  return -1;
}

/** Whether the place intents of `a` equal a contiguous run of `b`'s. */
export function contiguousIn(a: readonly string[], b: readonly string[]): boolean {
  return contiguousAt(a, b) >= 0;
}

/** Gaps of one mode's figures to the live run's: relative for quantities, fees and PnL, points for the taker share. */
export interface Gaps {
  readonly qty: number;
  readonly fee: number;
  readonly taker: number;
  readonly pnl: number;
}

function gapsOf(f: Figures, live: Figures): Gaps {
  return { qty: gap(f.filledQty, live.filledQty), fee: gap(f.fees, live.fees), taker: Math.abs(f.takerShare - live.takerShare), pnl: gap(f.pnl, live.pnl) };
}

/**
 * The tolerance of each figure: the goal, or how far two live runs of the same market differed when
 * that is more (a smaller gap cannot be told apart from the live run's own noise).
 */
export function tolerances(r: ParityResult): Gaps {
  const again = r.liveAgain === undefined ? undefined : gapsOf(figuresOf(r.liveAgain, r.mark), figuresOf(r.live, r.mark));
  const tol = (k: keyof Gaps): number => Math.max(GOAL, again?.[k] ?? 0);
  return { qty: tol('qty'), fee: tol('fee'), taker: tol('taker'), pnl: tol('pnl') };
}

/** Table rows (markdown) of results: every mode's figures, its gaps to the live run and each figure's tolerance. */
export function parityTable(results: readonly ParityResult[]): { lines: string[]; met: boolean } {
  const lines = [
    '| strategy | mode | orders | filled qty | taker share | fees (USDT) | PnL (USDT) | qty gap | fee gap | taker gap | PnL gap | PnL gap, bps of turnover |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|',
  ];
  let met = true;
  for (const r of results) {
    const live = figuresOf(r.live, r.mark);
    const tol = tolerances(r);
    for (const m of ['live', 'liveAgain', 'paper', 'backtest'] as const) {
      const o = r[m];
      if (o === undefined) continue;
      const f = figuresOf(o, r.mark);
      const g = m === 'live' ? undefined : gapsOf(f, live);
      if (g && m !== 'liveAgain' && (g.qty > tol.qty || g.fee > tol.fee || g.taker > tol.taker || g.pnl > tol.pnl)) met = false;
      const cells = g ? [pct(g.qty), pct(g.fee), `${(g.taker * 100).toFixed(1)} pp`, pct(g.pnl), pnlGapBps(f, live).toFixed(2)] : ['', '', '', '', ''];
      lines.push(`| ${r.c.plugin} | ${m === 'liveAgain' ? 'live again' : m} | ${f.orders} | ${num(f.filledQty)} | ${pct(f.takerShare)} | ${num(f.fees, 4)} | ${num(f.pnl, 4)} | ${cells.join(' | ')} |`);
    }
    lines.push(`|  | tolerance | | | | | | ${pct(tol.qty)} | ${pct(tol.fee)} | ${(tol.taker * 100).toFixed(1)} pp | ${pct(tol.pnl)} | |`);
    const l = r.live.intents;
    const same = (x: readonly string[]): string => (x.join('|') === l.join('|') ? '=' : contiguousIn(x, l) || contiguousIn(l, x) ? '= (but for a later start)' : '!=');
    if (r.c.sameIntents === true && (same(r.paper.intents) !== '=' || same(r.backtest.intents) !== '=')) met = false;
    const m = r.measured;
    lines.push(`|  | measured | live: feed ${m.feedWallMs} ms, order to engine ${m.entryWallMs ?? 'n/a'} ms, engine to acknowledgement ${m.ackWallMs ?? 'n/a'} ms, engine to fill report ${m.fillWallMs ?? 'n/a'} ms wall, ${m.fillReplayMs ?? 'n/a'} ms of recording (medians of ${m.samples}); paper and backtest: entry and cancel order by order (entry median ${m.entryMs} ms), report ${m.ackMs} ms, fill report ${m.ackMs + m.streamHoldMs} ms of recording time; place intents vs live: paper ${same(r.paper.intents)}, backtest ${same(r.backtest.intents)}${r.engineCheck ? `; orders replayed through one engine fill as in their run: live ${r.engineCheck.live.orders - r.engineCheck.live.differ} of ${r.engineCheck.live.orders}, backtest ${r.engineCheck.backtest.orders - r.engineCheck.backtest.differ} of ${r.engineCheck.backtest.orders}` : ''} |`);
  }
  return { lines, met };
}
