/**
 * The trades an average-price window holds, in flat typed arrays rather than objects: a live bot
 * with a 5-minute window at 1,000 trades/s holds ~300k trades, and as Decimals they would be tens
 * of MB of old generation that every mark-compact walks. A trade is its time and its price and
 * quantity as m x 10^e (m a safe integer, e small), 26 bytes; a value that does not fit takes the
 * side list of exact Decimals, so any input is held exactly.
 */
import type { Decimal } from './decimal.js';

/** A trade held as Decimals: its price * quantity and its quantity (exact). */
export interface SideTrade {
  readonly pq: Decimal;
  readonly q: Decimal;
}

const INITIAL = 1024;

/** Trades oldest first, addressed by their index in the whole sequence (dropped ones included). */
export class HeldTrades {
  /** Index of slot 0 in the trade sequence (trades before it were dropped). */
  base = 0;
  /** Number of trades held. */
  n = 0;
  times = new Float64Array(INITIAL);
  /** Price and quantity mantissas; NaN in `pm` marks a side trade. */
  pm = new Float64Array(INITIAL);
  qm = new Float64Array(INITIAL);
  /** Price and quantity exponents (small: see the caller's bound). */
  pe = new Int8Array(INITIAL);
  qe = new Int8Array(INITIAL);
  /** Side trades by sequence index, oldest first. */
  readonly side = new Map<number, SideTrade>();

  /** Appends a trade of price pm x 10^pe and quantity qm x 10^qe. */
  push(t: number, pm: number, pe: number, qm: number, qe: number): void {
    if (this.n === this.times.length) this.#resize(this.n * 2);
    const i = this.n++;
    this.times[i] = t;
    this.pm[i] = pm;
    this.pe[i] = pe;
    this.qm[i] = qm;
    this.qe[i] = qe;
  }

  /** Appends a trade held as exact Decimals. */
  pushSide(t: number, trade: SideTrade): void {
    this.side.set(this.base + this.n, trade);
    this.push(t, NaN, 0, 0, 0);
  }

  /** The side trade in slot `i`. */
  sideAt(i: number): SideTrade {
    return this.side.get(this.base + i) as SideTrade;
  }

  /** Drops the trades before sequence index `to` (shifting the rest to slot 0) and gives back room a burst left. */
  dropBefore(to: number): void {
    const drop = to - this.base;
    const n = this.n - drop;
    for (const a of [this.times, this.pm, this.qm, this.pe, this.qe]) a.copyWithin(0, drop, this.n);
    this.n = n;
    this.base = to;
    for (const k of this.side.keys()) {
      if (k >= to) break;
      this.side.delete(k);
    }
    if (this.times.length > INITIAL && n * 4 < this.times.length) this.#resize(Math.max(INITIAL, n * 2));
  }

  #resize(cap: number): void {
    const n = this.n;
    const grow = <T extends Float64Array | Int8Array>(a: T, b: T): T => {
      b.set(a.subarray(0, n));
      return b;
    };
    this.times = grow(this.times, new Float64Array(cap));
    this.pm = grow(this.pm, new Float64Array(cap));
    this.qm = grow(this.qm, new Float64Array(cap));
    this.pe = grow(this.pe, new Int8Array(cap));
    this.qe = grow(this.qe, new Int8Array(cap));
  }
}
