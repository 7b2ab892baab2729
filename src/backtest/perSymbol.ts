/**
 * A strategy's figures per symbol: its closed round trips (count, winners, net PnL after fees) and
 * its inventory over the run (largest position either way, time-weighted mean absolute position,
 * share of the run long and short), from its fills and round trips one at a time. Positions are
 * what the account holds (net of base-asset fees), exact (core/bigDecimal.ts); the mean and the shares are floats.
 */
import { BIG_ZERO, bigCmp, bigMinus, bigNeg, bigPlus, bigSign, bigToNumber, type BigDec } from '../core/bigDecimal.js';
import { bigOfText, bigText } from '../core/bigDecimalText.js';
import { roundStat } from './metrics.js';
import { InventorySeries } from './inventorySeries.js';
import type { ReportFill, RoundTrip, SymbolStats } from './result.js';

/**
 * The base-asset change a fill makes to the account's position (a buy's base fee is not held), as
 * decimal.js's `new Decimal(qty).minus(fee)` or `.neg()` gives it (bigDecimal.ts).
 */
export function positionChange(f: ReportFill): BigDec {
  const q = bigOfText(f.qty);
  if (f.side !== 'BUY') return bigNeg(q);
  return f.feeAsset === f.symbol.slice(0, f.symbol.indexOf('_')) ? bigMinus(q, bigOfText(f.fee)) : q;
}

/** |x| (exact, as decimal.js's abs: it does not round). */
function bigAbs(x: BigDec): BigDec {
  return x.m < 0n ? bigNeg(x) : x;
}

class SymbolBook {
  pos = BIG_ZERO;
  since: number;
  maxAbs = BIG_ZERO;
  absMs = 0;
  longMs = 0;
  shortMs = 0;
  trips = 0;
  wins = 0;
  pnl = BIG_ZERO;
  readonly inventory = new InventorySeries();

  constructor(start: number) {
    this.since = start;
  }

  /** Accrues the position held from `since` to `t`. */
  advance(t: number): void {
    const dt = t - this.since;
    if (dt <= 0) return;
    this.absMs += bigToNumber(bigAbs(this.pos)) * dt;
    const sign = bigSign(this.pos);
    if (sign > 0) this.longMs += dt;
    else if (sign < 0) this.shortMs += dt;
    this.since = t;
  }
}

/** Builds {@link SymbolStats} per symbol of one strategy from its fills and round trips in order. */
export class PerSymbolBuilder {
  readonly #books = new Map<string, SymbolBook>();

  constructor(readonly span: { readonly start: number; readonly end: number }) {}

  #book(symbol: string): SymbolBook {
    let b = this.#books.get(symbol);
    if (b === undefined) this.#books.set(symbol, (b = new SymbolBook(this.span.start)));
    return b;
  }

  /** A fill, with the change it makes to the position when the caller has it. */
  fill(f: ReportFill, change: BigDec = positionChange(f)): void {
    const b = this.#book(f.symbol);
    b.advance(f.t);
    b.pos = bigPlus(b.pos, change);
    b.inventory.add(f.t, bigToNumber(b.pos));
    const abs = bigAbs(b.pos);
    if (bigCmp(abs, b.maxAbs) > 0) b.maxAbs = abs;
  }

  /** A closed round trip; `pnl` is its PnL's value when the caller has it (else read from its text). */
  trip(t: RoundTrip, pnl: BigDec = bigOfText(t.pnl)): void {
    const b = this.#book(t.symbol);
    b.trips++;
    if (pnl.m > 0n) b.wins++;
    b.pnl = bigPlus(b.pnl, pnl);
  }

  /** The figures per symbol, in symbol order. */
  stats(): Record<string, SymbolStats> {
    const ms = this.span.end - this.span.start;
    const pct = (x: number): number => (ms <= 0 ? 0 : roundStat((x / ms) * 100));
    const out: Record<string, SymbolStats> = {};
    for (const sym of [...this.#books.keys()].sort()) {
      const b = this.#books.get(sym) as SymbolBook;
      b.advance(this.span.end);
      out[sym] = {
        roundTrips: b.trips,
        wins: b.wins,
        netPnl: bigText(b.pnl),
        maxAbsPosition: bigText(b.maxAbs),
        meanAbsPosition: ms <= 0 ? 0 : roundStat(b.absMs / ms),
        longPct: pct(b.longMs),
        shortPct: pct(b.shortMs),
        inventory: b.inventory.points(this.span.end),
      };
    }
    return out;
  }
}
