/**
 * An account's own trades on one symbol, stored column-wise in typed arrays: a long run records
 * hundreds of thousands of them for history queries, and one object (plus two bigints) per trade
 * made the garbage collector copy and mark every one. Records are rebuilt as objects only when a
 * query reads them.
 */
import { MAX_SAFE } from './scaled.js';

/** An own trade as a query reads it; the commission asset is the asset received (base for a buyer). */
export interface TradeRec {
  readonly id: number;
  readonly orderId: number;
  readonly price: number;
  readonly qty: number;
  readonly quote: bigint;
  readonly fee: bigint;
  readonly isBuyer: boolean;
  readonly isMaker: boolean;
  readonly time: number;
}

const BUYER = 1;
const MAKER = 2;

/**
 * Append-only columns with an optional bound: beyond `limit` rows the oldest are dropped. Ids,
 * prices, quantities and times are safe integers, held exactly in Float64Arrays. Quote and fee are
 * bigints: those up to 2^53 - 1 are held as doubles (exact); larger ones are held as NaN in the
 * column and as the exact bigint in `big`, keyed by the row's sequence number.
 */
export class TradeLog {
  private cap = 0;
  private id: Float64Array<ArrayBuffer> = new Float64Array(0);
  private orderId: Float64Array<ArrayBuffer> = new Float64Array(0);
  private price: Float64Array<ArrayBuffer> = new Float64Array(0);
  private qty: Float64Array<ArrayBuffer> = new Float64Array(0);
  private time: Float64Array<ArrayBuffer> = new Float64Array(0);
  private quote: Float64Array<ArrayBuffer> = new Float64Array(0);
  private fee: Float64Array<ArrayBuffer> = new Float64Array(0);
  private flags: Uint8Array<ArrayBuffer> = new Uint8Array(0);
  /** Rows live in [start, end) of the arrays; `seq0` is the sequence number of array row 0. */
  private start = 0;
  private end = 0;
  private seq0 = 0;
  /** Quotes and fees beyond 2^53 - 1, by sequence number. */
  private readonly big = new Map<number, { quote: bigint; fee: bigint }>();

  constructor(private readonly limit: number) {}

  /** Number of rows kept. */
  get length(): number {
    return this.end - this.start;
  }

  /** Appends a trade, dropping the oldest beyond the bound. */
  push(id: number, orderId: number, price: number, qty: number, quote: number | bigint, fee: number | bigint, isBuyer: boolean, isMaker: boolean, time: number): void {
    if (this.limit === 0) return;
    if (this.end === this.cap) this.makeRoom();
    const i = this.end++;
    this.id[i] = id;
    this.orderId[i] = orderId;
    this.price[i] = price;
    this.qty[i] = qty;
    this.time[i] = time;
    this.flags[i] = (isBuyer ? BUYER : 0) | (isMaker ? MAKER : 0);
    // Numbers are safe integers by the caller's contract; bigints are checked.
    if (typeof quote === 'number' && typeof fee === 'number') {
      this.quote[i] = quote;
      this.fee[i] = fee;
    } else if (fitsSafe(quote) && fitsSafe(fee)) {
      this.quote[i] = Number(quote);
      this.fee[i] = Number(fee);
    } else {
      this.quote[i] = NaN;
      this.fee[i] = NaN;
      this.big.set(this.seq0 + i, { quote: BigInt(quote), fee: BigInt(fee) });
    }
    if (this.end - this.start > this.limit) this.dropOldest();
  }

  /** The kept rows, oldest first. */
  rows(): TradeRec[] {
    const out: TradeRec[] = [];
    for (let i = this.start; i < this.end; i++) {
      const f = this.flags[i]!;
      const q = this.quote[i]!;
      const big = q !== q ? this.big.get(this.seq0 + i) : undefined;
      out.push({
        id: this.id[i]!,
        orderId: this.orderId[i]!,
        price: this.price[i]!,
        qty: this.qty[i]!,
        quote: big !== undefined ? big.quote : BigInt(q),
        fee: big !== undefined ? big.fee : BigInt(this.fee[i]!),
        isBuyer: (f & BUYER) !== 0,
        isMaker: (f & MAKER) !== 0,
        time: this.time[i]!,
      });
    }
    return out;
  }

  private dropOldest(): void {
    const i = this.start++;
    if (this.quote[i] !== this.quote[i]) this.big.delete(this.seq0 + i);
  }

  /** Full arrays: slide the live rows down when at least half are dropped ones, else grow. */
  private makeRoom(): void {
    const n = this.end - this.start;
    if (this.start > 0 && this.start * 2 >= this.cap) {
      for (const a of [this.id, this.orderId, this.price, this.qty, this.time, this.quote, this.fee]) a.copyWithin(0, this.start, this.end);
      this.flags.copyWithin(0, this.start, this.end);
      this.seq0 += this.start;
      this.start = 0;
      this.end = n;
      return;
    }
    const cap = Math.max(64, this.cap * 2);
    const grow = (a: Float64Array<ArrayBuffer>): Float64Array<ArrayBuffer> => {
      const b = new Float64Array(cap);
      b.set(a.subarray(0, this.end));
      return b;
    };
    this.id = grow(this.id);
    this.orderId = grow(this.orderId);
    this.price = grow(this.price);
    this.qty = grow(this.qty);
    this.time = grow(this.time);
    this.quote = grow(this.quote);
    this.fee = grow(this.fee);
    const flags = new Uint8Array(cap);
    flags.set(this.flags.subarray(0, this.end));
    this.flags = flags;
    this.cap = cap;
  }
}

const MAX_SAFE_N = BigInt(MAX_SAFE);

/** True for a non-negative value up to 2^53 - 1. */
function fitsSafe(v: number | bigint): boolean {
  return typeof v === 'number' ? v >= 0 && v <= MAX_SAFE : v >= 0n && v <= MAX_SAFE_N;
}
