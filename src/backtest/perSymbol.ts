/**
 * A strategy's figures per symbol: its closed round trips (count, winners, net PnL after fees) and
 * its inventory over the run (largest position either way, time-weighted mean absolute position,
 * share of the run long and short), from its fills and round trips one at a time. Positions are
 * what the account holds (net of base-asset fees), exact; the mean and the shares are floats.
 */
import { Decimal, ZERO } from '../core/decimal.js';
import { roundStat } from './metrics.js';
import type { ReportFill, RoundTrip, SymbolStats } from './result.js';

/** The base-asset change a fill makes to the account's position (a buy's base fee is not held). */
export function positionChange(f: ReportFill): Decimal {
  let q = new Decimal(f.qty);
  if (f.side === 'BUY' && f.feeAsset === f.symbol.slice(0, f.symbol.indexOf('_'))) q = q.minus(f.fee);
  return f.side === 'BUY' ? q : q.neg();
}

class SymbolBook {
  pos = ZERO;
  since: number;
  maxAbs = ZERO;
  absMs = 0;
  longMs = 0;
  shortMs = 0;
  trips = 0;
  wins = 0;
  pnl = ZERO;

  constructor(start: number) {
    this.since = start;
  }

  /** Accrues the position held from `since` to `t`. */
  advance(t: number): void {
    const dt = t - this.since;
    if (dt <= 0) return;
    this.absMs += this.pos.abs().toNumber() * dt;
    if (this.pos.gt(0)) this.longMs += dt;
    else if (this.pos.lt(0)) this.shortMs += dt;
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

  fill(f: ReportFill): void {
    const b = this.#book(f.symbol);
    b.advance(f.t);
    b.pos = b.pos.plus(positionChange(f));
    if (b.pos.abs().gt(b.maxAbs)) b.maxAbs = b.pos.abs();
  }

  trip(t: RoundTrip): void {
    const b = this.#book(t.symbol);
    const p = new Decimal(t.pnl);
    b.trips++;
    if (p.gt(0)) b.wins++;
    b.pnl = b.pnl.plus(p);
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
        netPnl: b.pnl.toFixed(),
        maxAbsPosition: b.maxAbs.toFixed(),
        meanAbsPosition: ms <= 0 ? 0 : roundStat(b.absMs / ms),
        longPct: pct(b.longMs),
        shortPct: pct(b.shortMs),
      };
    }
    return out;
  }
}
