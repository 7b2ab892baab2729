/**
 * Internal mutable state of the engine: symbols with their scales and scaled filters, accounts with
 * bigint balances, and orders. Nothing here is exported from the package index.
 */
import { Decimal } from '../core/decimal.js';
import type { PriceRangeRule, SymbolInfo } from '../core/types.js';
import { BookSide } from './book.js';
import { decimalsOf, pow10n } from './scaled.js';
import { Ord, Pos, generatedClientId } from './order.js';
import { TradeLog, type TradeRec } from './trades.js';
import { Bal } from './amount.js';
import type { OrderColumns } from './columns.js';

export { Bal, Ord, Pos, generatedClientId, type TradeRec };

/** Scaled-integer view of a LOT_SIZE-like filter (0 disables min/max/step, as the spec says). */
export interface ScaledLot {
  readonly min: number;
  readonly max: number;
  readonly step: number;
}


/** Open-order counters of one account on one symbol. */
export interface OpenCounts {
  all: number;
  algo: number;
  iceberg: number;
}

/** A public trade, kept compact in a ring per symbol; ring slots are overwritten in place once full. */
export interface PubTrade {
  id: number;
  price: number;
  qty: number;
  buyer: number;
  seller: number;
  isBuyerMaker: boolean;
  time: number;
}

/**
 * What an account keeps of one symbol for the history queries (allOrders, accountTrades, lookups
 * by id or clientId): its order ids in id order and its own trades. Open orders are always kept; with
 * a finite `limit` only the `limit` most recently ended orders and the `limit` most recent trades
 * stay, so a long run does not retain (and garbage-collect over) every order it ever placed.
 *
 * Order ids rather than records (the engine's id index resolves them): a young record stored into
 * this long-lived (old) array is an old-to-young pointer that the write barrier records and the next
 * scavenge visits and updates, one more per order; a small-integer id is none. Matching bench, per
 * CPU second, in-process A/B of 10-16 alternations: +12.6 %, +4.3 % (single-threaded GC), +14.4 %
 * (historyLimit 10,000).
 */
export class History {
  /** Order ids in increasing order, open and ended; an evicted id is stored as `-id - 1` until compaction. */
  orders: number[] = [];
  /** Evicted ids still in `orders` (compacted away once they are half of it). */
  private evictedInOrders = 0;
  /**
   * Ids of ended orders in the order they ended: the eviction queue (finite limit only), live from
   * `endedStart`. Ids for the same reason as `orders` (historyLimit 10,000 on the matching bench:
   * +9.7 % and +12.4 % per CPU second, 0.952 with single-threaded GC).
   */
  private ended: number[] = [];
  private endedStart = 0;
  /** Own trades in id order, column-wise. */
  readonly trades: TradeLog;

  constructor(readonly limit: number) {
    this.trades = new TradeLog(limit);
  }

  /**
   * Records that order `id` ended; returns the id of the order this pushes out of the bound (the
   * caller marks that order evicted and drops it from its indexes), or -1.
   */
  orderEnded(id: number): number {
    if (this.limit === Infinity) return -1;
    this.ended.push(id);
    if (this.ended.length - this.endedStart <= this.limit) return -1;
    const out = this.ended[this.endedStart++]!;
    if (this.endedStart > 1024 && this.endedStart * 2 > this.ended.length) {
      this.ended = this.ended.slice(this.endedStart);
      this.endedStart = 0;
    }
    this.markEvicted(out);
    if (++this.evictedInOrders > 1024 && this.evictedInOrders * 2 > this.orders.length) {
      this.orders = this.orders.filter((id) => id >= 0);
      this.evictedInOrders = 0;
    }
    return out;
  }

  /** Marks `id` evicted in `orders` as `-id - 1` (binary search on the decoded ids, which stay increasing). */
  private markEvicted(id: number): void {
    const a = this.orders;
    let lo = 0;
    let hi = a.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const x = a[mid]!;
      const v = x < 0 ? -x - 1 : x;
      if (v === id) {
        a[mid] = -id - 1;
        return;
      }
      if (v < id) lo = mid + 1;
      else hi = mid - 1;
    }
  }

  /** Ids of the orders still kept, in increasing order. */
  keptOrders(): number[] {
    return this.evictedInOrders === 0 ? this.orders : this.orders.filter((id) => id >= 0);
  }

  /** Own trades still kept, in id order. */
  keptTrades(): TradeRec[] {
    return this.trades.rows();
  }
}

/** An account. */
export class Acct {
  readonly bal = new Map<string, Bal>();
  readonly open = new Map<string, OpenCounts>();
  totalOpen = 0;
  totalAlgo = 0;
  /** Orders and own trades per symbol, for history queries. */
  readonly hist = new Map<string, History>();
  private readonly positions = new Map<Sym, Pos>();
  /** The Pos `pos` answered last: orders come in runs on one symbol, so one compare usually replaces the map lookup. */
  private lastPos: Pos | null = null;
  /**
   * Open orders as a bitset over order ids: bit `k & 31` of word `k >> 5`, k = id − `openBase`.
   * Ids are issued in placement order, so the set bits read in order are the open orders in
   * placement order. Why not a linked list through the order records: removing an order there
   * writes both neighbours, two random old orders (two cache misses on every cancel and every
   * fill that ends a resting order); a bit is one word of a small array that stays in cache
   * (4 bytes per 32 ids). The words span the ids from the oldest open order (about: `openLo` only
   * moves forward when a scan or a growth finds zero words) to the newest.
   */
  private openWords = new Int32Array(64);
  /** The id of bit 0 of word 0 (a multiple of 32); -1 until the first order. */
  private openBase = -1;
  /** Words below this index are all zero. */
  private openLo = 0;
  /** The word of the newest order added (later adds are at or above it: ids only grow). */
  private openHi = 0;
  /** Most recent order per clientId (the spec does not make clientIds unique). */
  readonly byClient = new Map<string, Ord>();
  /** Assets changed during the current operation (only tracked while events are on). */
  readonly dirty = new Set<string>();
  lastUpdate = 0;
  /** Commission rates in bips, as outboundAccountPosition carries them. */
  readonly makerBips: number;
  readonly takerBips: number;
  constructor(
    readonly id: string,
    readonly group: string | undefined,
    /** Commission rates as integers at the engine's rate scale. */
    readonly maker: number,
    readonly taker: number,
    readonly makerDec: Decimal,
    readonly takerDec: Decimal,
    public canTrade: boolean,
    /** How many ended orders and own trades per symbol the history keeps (Infinity: all). */
    readonly historyLimit: number = Infinity,
  ) {
    this.makerBips = makerDec.mul(10_000).toNumber();
    this.takerBips = takerDec.mul(10_000).toNumber();
  }

  /** The balance of an asset, created at zero. */
  b(asset: string): Bal {
    let x = this.bal.get(asset);
    if (x === undefined) {
      x = new Bal();
      this.bal.set(asset, x);
    }
    return x;
  }

  /** The history of a symbol, created empty. */
  history(symbol: string): History {
    let h = this.hist.get(symbol);
    if (h === undefined) {
      h = new History(this.historyLimit);
      this.hist.set(symbol, h);
    }
    return h;
  }

  /** What this account has on a symbol (balances, counters, history), created on first use. */
  pos(sym: Sym): Pos {
    const last = this.lastPos;
    if (last !== null && last.sym === sym) return last;
    let p = this.positions.get(sym);
    if (p === undefined) {
      p = new Pos(this, sym);
      this.positions.set(sym, p);
    }
    this.lastPos = p;
    return p;
  }

  /** The account's Pos on `sym` when it has one (nothing is created: a refused order must not add balances). */
  posIfAny(sym: Sym): Pos | undefined {
    const last = this.lastPos;
    if (last !== null && last.sym === sym) return last;
    const p = this.positions.get(sym);
    if (p !== undefined) this.lastPos = p;
    return p;
  }

  /** Open counters on a symbol, created at zero. */
  counts(symbol: string): OpenCounts {
    let c = this.open.get(symbol);
    if (c === undefined) {
      c = { all: 0, algo: 0, iceberg: 0 };
      this.open.set(symbol, c);
    }
    return c;
  }

  /** Adds an order to the open set; orders are added in id order (the engine's placement order). */
  addOpen(o: Ord): void {
    if (this.openBase < 0) this.openBase = o.id - (o.id % 32);
    let k = o.id - this.openBase;
    if (k >= this.openWords.length * 32) {
      this.growOpen(Math.floor(k / 32));
      k = o.id - this.openBase;
    }
    const w = Math.floor(k / 32);
    this.openWords[w]! |= 1 << (k % 32);
    this.openHi = w;
  }

  /** Removes an order from the open set (no-op when absent). */
  removeOpen(o: Ord): void {
    const k = o.id - this.openBase;
    if (this.openBase < 0 || k < 0) return;
    const w = Math.floor(k / 32);
    if (w >= this.openWords.length) return;
    this.openWords[w]! &= ~(1 << (k % 32));
  }

  /** Open orders in placement order; `byId` resolves an open order's id (open orders are always held). */
  openList(byId: (id: number) => Ord): Ord[] {
    const out: Ord[] = [];
    const a = this.openWords;
    while (this.openLo < this.openHi && a[this.openLo] === 0) this.openLo++;
    for (let w = this.openLo; w <= this.openHi; w++) {
      let x = a[w]!;
      while (x !== 0) {
        const low = x & -x;
        out.push(byId(this.openBase + w * 32 + 31 - Math.clz32(low)));
        x ^= low;
      }
    }
    return out;
  }

  /** Makes room for word `w`: drops the zero words below the oldest open order, or doubles. */
  private growOpen(w: number): void {
    const a = this.openWords;
    let lo = this.openLo;
    while (lo < a.length && a[lo] === 0) lo++;
    if (lo * 2 >= a.length) {
      // Half or more of the words are below the oldest open order: slide the rest down.
      a.copyWithin(0, lo);
      a.fill(0, a.length - lo);
      this.openBase += lo * 32;
      this.openLo = 0;
      this.openHi = Math.max(0, this.openHi - lo);
      if (w - lo < a.length) return;
      w -= lo;
    } else this.openLo = lo;
    let n = a.length * 2;
    while (n <= w) n *= 2;
    const b = new Int32Array(n);
    b.set(a);
    this.openWords = b;
  }
}

/** An OCO list. */
export class OrderList {
  done = false;
  updateTime: number;
  constructor(
    readonly id: number,
    readonly clientId: string,
    readonly symbol: string,
    readonly acct: Acct,
    readonly createTime: number,
    public limitLeg: Ord,
    public stopLeg: Ord,
  ) {
    this.updateTime = createTime;
  }
}

/** The order id inside a generated clientId, or -1. */
export function idOfGeneratedClientId(clientId: string): number {
  if (!clientId.startsWith('sim-')) return -1;
  const n = Number(clientId.slice(4));
  return Number.isSafeInteger(n) && n > 0 && String(n) === clientId.slice(4) ? n : -1;
}

/** Scaled bounds of the PRICE_RANGE rule for takers; NaN-free: absent limits are +-Infinity. */
export interface RangeBounds {
  readonly bidMax: number;
  readonly bidMin: number;
  readonly askMax: number;
  readonly askMin: number;
}

/** A symbol with its books, scales and scaled filters. */
export class Sym {
  readonly name: string;
  readonly base: string;
  readonly quote: string;
  /** Price and quantity decimals; notional scale is pd + qd. */
  readonly pd: number;
  readonly qd: number;
  readonly tick: number;
  readonly minPrice: number;
  readonly maxPrice: number;
  readonly lot: ScaledLot | undefined;
  /** NOTIONAL bounds at notional scale when they are safe integers (-1: use the exact bigint path; max 0: none). */
  readonly minNotional: number;
  readonly maxNotional: number;
  readonly mlot: ScaledLot | undefined;
  readonly bids = new BookSide(true);
  readonly asks = new BookSide(false);
  /** Untriggered stop orders in id order. */
  readonly stops: Ord[] = [];
  /** Last trade price at price scale, -1 when none. */
  last = -1;
  /** Trades kept for the average price window: time, price, qty. */
  readonly hist: { t: number; p: number; q: number }[] = [];
  histStart = 0;
  /** Longest averaging window any filter needs, ms (0: only the last price is needed). */
  readonly windowMs: number;
  /** Recent public trades: a ring buffer, `recentNext` is where the next one goes. */
  readonly recent: PubTrade[] = [];
  recentNext = 0;
  ref: Decimal | null = null;
  /** u of the last emitted depth diff. */
  updateId = 0;
  range: RangeBounds | null = null;
  /** Prices of the levels touched in the current operation (only tracked while events are on; see MatchingEngine.touch). */
  readonly touchedBids: number[] = [];
  readonly touchedAsks: number[] = [];
  touchedAny = false;
  /** Factors from quantity units to base asset units and from notional units to quote asset units. */
  baseF = 1n;
  quoteF = 1n;
  /** Factors for commissions: qty * rate * feeBaseF (base), notional * rate * feeQuoteF (quote). */
  feeBaseF = 1n;
  feeQuoteF = 1n;
  /** The same factors as numbers (exact while they stay below 2^53; mul3 falls back to bigint otherwise). */
  baseFn = 1;
  quoteFn = 1;
  feeBaseFn = 1;
  feeQuoteFn = 1;

  constructor(
    readonly info: SymbolInfo,
    readonly priceRange: PriceRangeRule | undefined,
    /** The engine's order columns (columns.ts), shared by all its symbols. */
    readonly cols: OrderColumns,
    decimals: { price?: number; quantity?: number } = {},
  ) {
    this.name = info.symbol;
    this.base = info.baseAsset;
    this.quote = info.quoteAsset;
    const f = info.filters;
    const pf = f.priceFilter;
    const priceDecs = pf ? Math.max(decimalsOf(pf.tickSize), decimalsOf(pf.minPrice), decimalsOf(pf.maxPrice)) : 0;
    // With no tick size the symbol's quote precision bounds how many decimals a price may carry.
    this.pd = Math.max(decimals.price ?? 0, pf && !pf.tickSize.isZero() ? priceDecs : Math.max(priceDecs, info.quotePrecision));
    const lots = [f.lotSize, f.marketLotSize].filter((x) => x !== undefined);
    const qtyDecs = Math.max(0, ...lots.map((l) => Math.max(decimalsOf(l.stepSize), decimalsOf(l.minQty), decimalsOf(l.maxQty))));
    const hasStep = f.lotSize !== undefined && !f.lotSize.stepSize.isZero();
    this.qd = Math.max(decimals.quantity ?? 0, hasStep ? qtyDecs : Math.max(qtyDecs, info.basePrecision));
    const sp = (d: Decimal): number => scaleExact(d, this.pd, 'price');
    const sq = (d: Decimal): number => scaleExact(d, this.qd, 'quantity');
    this.tick = pf ? sp(pf.tickSize) : 0;
    this.minPrice = pf ? sp(pf.minPrice) : 0;
    this.maxPrice = pf ? sp(pf.maxPrice) : 0;
    this.lot = f.lotSize ? { min: sq(f.lotSize.minQty), max: sq(f.lotSize.maxQty), step: sq(f.lotSize.stepSize) } : undefined;
    this.mlot = f.marketLotSize ? { min: sq(f.marketLotSize.minQty), max: sq(f.marketLotSize.maxQty), step: sq(f.marketLotSize.stepSize) } : undefined;
    const ns = new Decimal(10).pow(this.pd + this.qd);
    const whole = (d: Decimal | undefined): number => {
      if (d === undefined) return -1;
      const v = d.mul(ns);
      return v.isInteger() && v.lte(Number.MAX_SAFE_INTEGER) ? v.toNumber() : -1;
    };
    this.minNotional = whole(f.notional?.minNotional);
    this.maxNotional = f.notional === undefined || f.notional.maxNotional.isZero() ? 0 : whole(f.notional.maxNotional);
    if (this.maxNotional < 0) this.minNotional = -1;
    const mins = Math.max(f.percentPrice?.avgPriceMins ?? 0, f.notional?.avgPriceMins ?? 0);
    this.windowMs = mins * 60_000;
  }

  /** The book side an order of this side rests on. */
  own(isBuy: boolean): BookSide {
    return isBuy ? this.bids : this.asks;
  }
  /** The book side an order of this side takes from. */
  opp(isBuy: boolean): BookSide {
    return isBuy ? this.asks : this.bids;
  }
}

/** Converts a configuration Decimal to a scaled integer, throwing when it does not fit the scale. */
export function scaleExact(d: Decimal, scale: number, what: string): number {
  const v = d.mul(new Decimal(10).pow(scale));
  if (!v.isInteger() || v.isNegative() || v.gt(Number.MAX_SAFE_INTEGER)) {
    throw new RangeError(`${what} ${d.toFixed()} cannot be represented with ${scale} decimals`);
  }
  return v.toNumber();
}

/** Converts a configuration Decimal to a bigint at `scale`, throwing when it does not fit. */
export function scaleExactBig(d: Decimal, scale: number, what: string): bigint {
  const v = d.mul(pow10Dec(scale));
  if (!v.isInteger()) throw new RangeError(`${what} ${d.toFixed()} has more than ${scale} decimals`);
  return BigInt(v.toFixed(0));
}

function pow10Dec(k: number): Decimal {
  return new Decimal(10).pow(k);
}

/** Decimal from a scaled integer. */
export function dec(v: number | bigint, scale: number): Decimal {
  return new Decimal(typeof v === 'bigint' ? v.toString() : String(v)).div(pow10Dec(scale));
}

/** bigint power of ten (re-exported for the engine's factor set-up). */
export const p10 = pow10n;
