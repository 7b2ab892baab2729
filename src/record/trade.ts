/**
 * Trades read from recordings with price and quantity kept as wire strings.
 *
 * A recording holds about three trades per depth diff (19.9k of the BTCUSDT recording's 26.4k
 * replayed events). The replay hands a trade to the matching engine, which scales plain decimal
 * strings directly, and keeps it as the symbol's last price; the eager parser built two Decimals
 * per trade that only a strategy reading trade prices (or a risk check reading the last price)
 * ever looks at, and the engine then turned them back into strings. Here `price` and `qty` are
 * own enumerable getters that build their Decimals on first access through the reader's
 * {@link DecimalTextCache}, so JSON, spread and deep equality see the eager parser's event, and the
 * strings are reachable through {@link rawTrade} for the replay's engine path. `tradeId` is a plain
 * string, spelled when the event is made (see {@link idText}). A trade read as integers
 * ({@link wireTrade}: a binary record, or a text line the scanner read) has plain values instead.
 */
import type { Decimal } from '../core/decimal.js';
import type { TradeEvent } from '../core/marketEvents.js';
import type { TradeId } from '../core/tradeId.js';
import type { DecimalTextCache } from '../core/decimalText.js';
import { isPlainDecimal } from './depth-diff.js';
import { scaledText } from './binary/format.js';
import { POW10 } from '../core/pow10.js';
import { ReturnOverride } from '../core/hiddenSlot.js';
import { plainConstructor } from '../core/plainObject.js';
import { ScaledDecimalCache } from './scaledDecimalCache.js';

/** The wire strings of a trade, in the matching engine's replayed-trade shape. */
export interface RawTrade {
  readonly price: string;
  readonly qty: string;
  readonly isBuyerMaker: boolean;
}

/**
 * A trade's price and quantity as scaled integers (`price` x 10^-priceScale), as a binary recording
 * holds them; read through {@link scaledTradeOf}.
 */
export interface ScaledTrade {
  readonly scaledPrice: number;
  readonly priceScale: number;
  readonly scaledQty: number;
  readonly qtyScale: number;
  readonly isBuyerMaker: boolean;
}

/** The fields of a trade event other than its decimals. */
export interface TradeFields {
  readonly E: number;
  readonly symbol: string;
  /** The id, or a safe integer one as read from the line (spelled by {@link idText}). */
  readonly tradeId: TradeId | number;
  readonly buyerOrderId?: string | undefined;
  readonly sellerOrderId?: string | undefined;
  readonly tradeTime: number;
  readonly isBuyerMaker: boolean;
}

/**
 * What a lazy trade keeps besides its plain fields: the wire strings (or, read from bytes,
 * the integers that spell them, the strings built when first asked for: most trades of a replay
 * never are, and the strings would outlive the young generation with the event), the cache, and
 * the Decimals once built.
 */
interface LazyTradeState extends ScaledTrade {
  raw: RawTrade | undefined;
  /** Trailing zeros the scaled values dropped from the wire's: the wire text is the scaled value times 10^zeros at scale + zeros. */
  readonly priceZeros: number;
  readonly qtyZeros: number;
  readonly cache: DecimalTextCache;
  price: Decimal | undefined;
  qty: Decimal | undefined;
}

/** A lazy trade's state, in a hidden slot: JSON, spread, keys and deep equality never see it. */
const STATE = class TradeSlot extends ReturnOverride {
  readonly #state: LazyTradeState;
  private constructor(o: object, state: LazyTradeState) {
    super(o);
    this.#state = state;
  }
  static set(o: object, state: LazyTradeState): void {
    new TradeSlot(o, state);
  }
  static get(o: object): LazyTradeState | undefined {
    return #state in o ? (o as TradeSlot).#state : undefined;
  }
};

/** The state of a trade made here (the getters run only on those). */
const stateOf = (e: object): LazyTradeState => STATE.get(e) as LazyTradeState;

/**
 * The `price`/`qty` getters, shared by every lazy trade (they read the state through `this`): per
 * object getter closures put each event in V8's dictionary mode (see record/depth-diff.ts), one
 * shared pair defined in the same order keeps every lazy trade on one fast hidden class.
 */
const LAZY_GETTERS: PropertyDescriptorMap = {
  price: {
    get(this: TradeEvent): Decimal {
      const s = stateOf(this);
      return (s.price ??= s.cache.get(rawOf(s).price));
    },
    enumerable: true,
    configurable: true,
  },
  qty: {
    get(this: TradeEvent): Decimal {
      const s = stateOf(this);
      return (s.qty ??= s.cache.get(rawOf(s).qty));
    },
    enumerable: true,
    configurable: true,
  },
};

/** The wire strings of a lazy trade, spelled from its integers on first use when it has no strings. */
function rawOf(s: LazyTradeState): RawTrade {
  return (s.raw ??= { price: wireText(s.scaledPrice, s.priceScale, s.priceZeros), qty: wireText(s.scaledQty, s.qtyScale, s.qtyZeros), isBuyerMaker: s.isBuyerMaker });
}

/** The wire's text of a value reduced by `zeros` trailing zeros (exact: the product is the wire's safe integer). */
function wireText(v: number, scale: number, zeros: number): string {
  return scaledText(v * (POW10[zeros] as number), scale + zeros);
}

/** The getters one by one: a defineProperty each costs about half of one defineProperties of all three. */
const PRICE_GETTER = LAZY_GETTERS.price as PropertyDescriptor;
const QTY_GETTER = LAZY_GETTERS.qty as PropertyDescriptor;

/**
 * A trade whose Decimals are built on first access from validated plain decimal strings, through
 * `cache`. Keys are in the eager parser's order (buyer/seller ids present even when undefined).
 * `scaled`: the same price and quantity as scaled integers when the reader has them (see
 * {@link scaledTradeOf}); only its numbers are kept.
 */
export function lazyTrade(f: TradeFields, price: string, qty: string, cache: DecimalTextCache, scaled?: ScaledTrade): TradeEvent {
  const raw = { price, qty, isBuyerMaker: f.isBuyerMaker };
  if (scaled === undefined) return makeLazyTrade(f.E, f.symbol, f.tradeId, f.buyerOrderId, f.sellerOrderId, f.tradeTime, f.isBuyerMaker, raw, cache, -1, 0, -1, 0);
  return makeLazyTrade(f.E, f.symbol, f.tradeId, f.buyerOrderId, f.sellerOrderId, f.tradeTime, f.isBuyerMaker, raw, cache, scaled.scaledPrice, scaled.priceScale, scaled.scaledQty, scaled.qtyScale);
}

/**
 * A trade from its fields as a reader has them (binary, or a text line's bytes), with no object to
 * gather them (a day's recording holds millions of trades): price and quantity are the integers
 * that spell the wire text at their scales. The event holds the lazy trade's values as plain
 * fields, its Decimals from integer caches ({@link ScaledDecimalCache}): two getters defined per
 * event cost more than that (the reader's instructions for 318k trades of the BTCUSDT recording:
 * 4.99 G with getters, 4.79 G without, cachegrind). The wire strings are spelled only when
 * {@link rawTrade} asks, and the replay's values ({@link scaledTradeOf}) are those at their
 * smallest exact scales (the wire's 8 decimals on Binance; a symbol's are usually fewer, which the
 * engine reaches by multiplying).
 */
export function wireTrade(E: number, symbol: string, tradeId: number, tradeTime: number, isBuyerMaker: boolean, buyerOrderId: string | undefined, sellerOrderId: string | undefined, price: number, priceScale: number, qty: number, qtyScale: number, cache: DecimalTextCache): TradeEvent {
  const f = WIRE_FIELDS;
  f[WireField.E] = E;
  f[WireField.tradeId] = tradeId;
  f[WireField.tradeTime] = tradeTime;
  f[WireField.price] = price;
  f[WireField.priceScale] = priceScale;
  f[WireField.qty] = qty;
  f[WireField.qtyScale] = qtyScale;
  return wireTradeOfFields(symbol, isBuyerMaker, buyerOrderId, sellerOrderId, cache);
}

/** Where each number of a wire trade lies in {@link WIRE_FIELDS}. */
export const WireField = { E: 0, tradeId: 1, tradeTime: 2, price: 3, priceScale: 4, qty: 5, qtyScale: 6 } as const;

/**
 * The numbers of the trade {@link wireTradeOfFields} makes next, filled by its caller. Why not
 * arguments: when TurboFan does not inline the call into a reader's loop (it often cannot: the
 * reader's inlining budget is spent), each argument above 2^31 went as a heap number made for the
 * call (~70 bytes a trade); a typed array holds them unboxed.
 */
export const WIRE_FIELDS = new Float64Array(7);

/** {@link wireTrade} of the numbers in {@link WIRE_FIELDS} (the binary reader's path). */
export function wireTradeOfFields(symbol: string, isBuyerMaker: boolean, buyerOrderId: string | undefined, sellerOrderId: string | undefined, cache: DecimalTextCache): TradeEvent {
  const f = WIRE_FIELDS;
  const price = f[WireField.price] as number;
  const priceScale = f[WireField.priceScale] as number;
  const qty = f[WireField.qty] as number;
  const qtyScale = f[WireField.qtyScale] as number;
  // Consecutive trades mostly share their price: its reduction is kept.
  if (price !== lastPrice || priceScale !== lastPriceScale) {
    lastPrice = price;
    lastPriceScale = priceScale;
    lastPriceZeros = trailingZeros(price, priceScale);
  }
  const pt = lastPriceZeros;
  const qt = trailingZeros(qty, qtyScale);
  const ev = new WireTrade(f[WireField.E] as number, symbol, idText(f[WireField.tradeId] as number), PRICES.get(price, priceScale, cache), QTYS.get(qty, qtyScale, cache), buyerOrderId, sellerOrderId, f[WireField.tradeTime] as number, isBuyerMaker);
  STATE.set(ev, new TradeState(price / (POW10[pt] as number), priceScale - pt, qty / (POW10[qt] as number), qtyScale - qt, isBuyerMaker, undefined, pt, qt, cache));
  return ev as unknown as TradeEvent;
}

/** Decimals of wire trades' prices and quantities. */
const PRICES = new ScaledDecimalCache();
const QTYS = new ScaledDecimalCache();

/** A wire trade's event: every field a value, in the eager parser's order (core/plainObject.ts). */
const WireTrade = plainConstructor(function (
  this: Record<string, unknown>,
  E: number,
  symbol: string,
  tradeId: TradeId,
  price: Decimal,
  qty: Decimal,
  buyerOrderId: string | undefined,
  sellerOrderId: string | undefined,
  tradeTime: number,
  isBuyerMaker: boolean,
) {
  this.type = 'trade';
  this.E = E;
  this.symbol = symbol;
  this.tradeId = tradeId;
  this.price = price;
  this.qty = qty;
  this.buyerOrderId = buyerOrderId;
  this.sellerOrderId = sellerOrderId;
  this.tradeTime = tradeTime;
  this.isBuyerMaker = isBuyerMaker;
});

let lastPrice = -1;
let lastPriceScale = -1;
let lastPriceZeros = 0;

/** How many trailing decimal zeros of `v` (a safe integer at `scale`) lie within its fraction digits. */
function trailingZeros(v: number, scale: number): number {
  let k = 0;
  // Division and product of doubles, exact here: for a safe integer x, floor(x / 10) * 10 gives x
  // back exactly when 10 divides it (a double's % is a library call, ~7 of them a new price).
  for (let x = v; k < scale && k < 22 && x !== 0; k++) {
    const q = Math.floor(x / 10);
    if (q * 10 !== x) break;
    x = q;
  }
  return k;
}

/** A trade event's first fields, its getters and the rest added after: a plain object made by `new` (core/plainObject.ts). */
const TradeShell = plainConstructor(function (this: Record<string | symbol, unknown>, E: number, symbol: string, tradeId: TradeId) {
  this.type = 'trade';
  this.E = E;
  this.symbol = symbol;
  this.tradeId = tradeId;
});

/** Ids from 2^30 on are doubles to V8, whose String() is a runtime call; halves below 10^5 are small integers. */
const SMALL_ID = 0x3fffffff;

/**
 * String(id) for a safe integer id >= 0, a large one spelled as the text of `id / 100` (kept from
 * the last call: a recording's ids mostly count up by one) and two digits from a table. Why: the
 * trade's id was a getter, as String() of a 10-digit id costs more than defining one, ~0.13 µs (a
 * runtime call); spelled in halves it cost less, but made three strings the event does not keep
 * (~55 bytes a trade); now the event's string is the only one made.
 */
export function idText(id: number): string {
  if (id <= SMALL_ID) return String(id);
  const head = Math.floor(id / 100);
  if (head !== lastHead) {
    lastHead = head;
    lastHeadText = idText(head);
  }
  return lastHeadText + (TWO_DIGITS[id - head * 100] as string);
}

/** The last head {@link idText} spelled, and its text. */
let lastHead = -1;
let lastHeadText = '';

/** "00" to "99". */
const TWO_DIGITS: readonly string[] = Array.from({ length: 100 }, (_, i) => String(i + 100).slice(1));

/** A trade's state, made by `new` as the event is (V8 never pretenures it: core/plainObject.ts). */
class TradeState implements LazyTradeState {
  declare price: Decimal | undefined;
  declare qty: Decimal | undefined;
  constructor(
    // The scaled values first, next to the object's header: the replay reads them and nothing else.
    readonly scaledPrice: number,
    readonly priceScale: number,
    readonly scaledQty: number,
    readonly qtyScale: number,
    readonly isBuyerMaker: boolean,
    public raw: RawTrade | undefined,
    readonly priceZeros: number,
    readonly qtyZeros: number,
    readonly cache: DecimalTextCache,
  ) {
    this.price = undefined;
    this.qty = undefined;
  }
}

/** The event and its state; `scaledPrice` -1 when the reader has no scaled values. */
function makeLazyTrade(E: number, symbol: string, id: TradeId | number, buyerOrderId: string | undefined, sellerOrderId: string | undefined, tradeTime: number, isBuyerMaker: boolean, raw: RawTrade, cache: DecimalTextCache, scaledPrice: number, priceScale: number, scaledQty: number, qtyScale: number): TradeEvent {
  const ev: Record<string | symbol, unknown> = new TradeShell(E, symbol, typeof id === 'string' ? id : idText(id));
  Object.defineProperty(ev, 'price', PRICE_GETTER);
  Object.defineProperty(ev, 'qty', QTY_GETTER);
  ev.buyerOrderId = buyerOrderId;
  ev.sellerOrderId = sellerOrderId;
  ev.tradeTime = tradeTime;
  ev.isBuyerMaker = isBuyerMaker;
  const state = new TradeState(scaledPrice, priceScale, scaledQty, qtyScale, isBuyerMaker, raw, 0, 0, cache);
  STATE.set(ev, state);
  return ev as unknown as TradeEvent;
}

/** A non-negative safe integer: an id the eager parser takes as its decimal digits. */
const isId = (v: unknown): v is number => Number.isSafeInteger(v) && (v as number) >= 0;
const optionalId = (v: unknown): v is number | undefined => v === undefined || isId(v);

/**
 * A lazily parsed trade for a `trade` payload whose fields are all well formed as the recordings
 * write them (safe non-negative integer ids, plain decimal strings); undefined otherwise, so the
 * eager parser accepts or reports it exactly as before (an id beyond 2^53 arrives as a string
 * from the line reader and takes that path).
 */
export function lazyTradeOf(d: Record<string, unknown>, symbolOf: ((wire: string) => string) | undefined, cache: DecimalTextCache): TradeEvent | undefined {
  if (d.e !== 'trade') return undefined;
  const { E, s, t, p, q, b, a, T, m } = d;
  if (!Number.isSafeInteger(E) || typeof s !== 'string' || !isId(t) || !Number.isSafeInteger(T) || typeof m !== 'boolean') return undefined;
  if (typeof p !== 'string' || typeof q !== 'string' || !isPlainDecimal(p) || !isPlainDecimal(q) || !optionalId(b) || !optionalId(a)) return undefined;
  const fields: TradeFields = {
    E: E as number,
    symbol: symbolOf ? symbolOf(s) : s,
    tradeId: t,
    buyerOrderId: b === undefined ? undefined : String(b),
    sellerOrderId: a === undefined ? undefined : String(a),
    tradeTime: T as number,
    isBuyerMaker: m,
  };
  return lazyTrade(fields, p, q, cache);
}

/** The wire strings of a trade made by {@link lazyTrade} (a copy keeps none: spread or JSON give Decimal fields). */
export function rawTrade(e: TradeEvent): RawTrade | undefined {
  const s = STATE.get(e);
  return s === undefined ? undefined : rawOf(s);
}

/**
 * A trade's price and quantity as scaled integers when its reader had them (a binary recording:
 * {@link lazyTrade} given `scaled`, which must equal the strings), else undefined. The replay
 * hands them to the matching engine without reading the strings (cold on a pre-loaded recording).
 */
export function scaledTradeOf(e: TradeEvent): ScaledTrade | undefined {
  const s = STATE.get(e);
  return s !== undefined && s.scaledPrice >= 0 ? s : undefined;
}
