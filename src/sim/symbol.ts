/**
 * Symbols: books, scales and scaled filters, the public trade ring and the average-price window;
 * and the conversions between configuration Decimals and scaled integers. Generic over the
 * engine's order record (its untriggered stops), supplied in state.ts.
 */
import { Decimal } from '../core/decimal.js';
import type { PriceRangeRule, SymbolInfo } from '../core/types.js';
import { BookSide } from './book.js';
import type { OrderColumns } from './columns.js';
import { decimalsOf, pow10n } from './scaled.js';
import { TradeWindow } from './tradeWindow.js';

/** Scaled-integer view of a LOT_SIZE-like filter (0 disables min/max/step, as the spec says). */
export interface ScaledLot {
  readonly min: number;
  readonly max: number;
  readonly step: number;
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

/** Scaled bounds of the PRICE_RANGE rule for takers; NaN-free: absent limits are +-Infinity. */
export interface RangeBounds {
  readonly bidMax: number;
  readonly bidMin: number;
  readonly askMax: number;
  readonly askMin: number;
}

/** A symbol with its books, scales and scaled filters. */
export class Sym<O = unknown> {
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
  readonly stops: O[] = [];
  /** Last trade price at price scale, -1 when none. */
  last = -1;
  /** Trades kept for the average price window: time, price, qty. */
  readonly hist = new TradeWindow();
  /** Longest averaging window any filter needs, ms (0: only the last price is needed). */
  readonly windowMs: number;
  /** Recent public trades: a ring buffer, `recentNext` is where the next one goes. */
  readonly recent: PubTrade[] = [];
  recentNext = 0;
  ref: Decimal | null = null;
  /** Time of the last replayed diff or snapshot: trades at or before it are reflected in the book. */
  bookTime = -Infinity;
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

const pow10Cache: Decimal[] = [];

function pow10Dec(k: number): Decimal {
  return (pow10Cache[k] ??= new Decimal(10).pow(k));
}

/**
 * Decimal from a scaled integer. Views build several per order and fill, so the common case
 * places the decimal point in the digit string (exact, no division); integers with more
 * significant digits than Decimal's precision keep the division, which rounds them as before.
 */
export function dec(v: number | bigint, scale: number): Decimal {
  const t = typeof v === 'bigint' ? v.toString() : String(v);
  const neg = t.charCodeAt(0) === 45;
  const digits = neg ? t.slice(1) : t;
  if (digits.length > Decimal.precision || !Number.isInteger(scale) || scale < 0 || /\D/.test(digits)) {
    return new Decimal(t).div(pow10Dec(scale));
  }
  if (scale === 0) return new Decimal(t);
  const padded = digits.length > scale ? digits : '0'.repeat(scale - digits.length + 1) + digits;
  const cut = padded.length - scale;
  return new Decimal(`${neg ? '-' : ''}${padded.slice(0, cut)}.${padded.slice(cut)}`);
}

/** bigint power of ten (re-exported for the engine's factor set-up). */
export const p10 = pow10n;
