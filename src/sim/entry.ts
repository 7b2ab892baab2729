/**
 * Entry checks of a new order: parameters per type, iceberg rules, STP mode, and every symbol and
 * exchange filter of the spec, each with its own reject reason and a message naming field and value.
 * Book-dependent checks (liquidity, would-take, balance) stay in the engine.
 */
import type { Decimal } from '../core/decimal.js';
import { ALGO_ORDER_TYPES, OrderType, type OrderTypeName, type RejectReasonName, type StpModeName, type TimeInForceName } from '../core/enums.js';
import { MARKET_EXECUTION_ORDER_TYPES, PRICED_ORDER_TYPES, STOP_ORDER_TYPES } from '../core/orderRules.js';
import type { ExchangeFilters } from '../core/filters.js';
import type { NewOrderRequest, Rejected } from './types.js';
import { fmt, toScaled, type DecimalInput } from './scaled.js';
import type { Acct, ScaledLot, Sym } from './state.js';

/** A validated order before book-dependent checks. Prices and quantities are scaled integers. */
export interface Draft {
  readonly isBuy: boolean;
  readonly type: NewOrderRequest['type'];
  readonly tif: TimeInForceName;
  readonly price: number;
  readonly stop: number;
  /** 0 for quoteOrderQty market buys until the engine chooses the quantity. */
  readonly qty: number;
  /** quoteOrderQty at notional scale; 0n when not used. */
  readonly quoteQty: bigint;
  readonly iceberg: number;
  readonly stp: StpModeName;
}

/**
 * A reusable Draft: the engine's single-order path fills one instance per call instead of
 * allocating a fresh object per order (it reads every field before anything can re-enter it).
 */
export class DraftBuf implements Draft {
  isBuy = false;
  type: NewOrderRequest['type'] = 'LIMIT';
  tif: TimeInForceName = 'GTC';
  price = 0;
  stop = 0;
  qty = 0;
  quoteQty = 0n;
  iceberg = 0;
  stp: StpModeName = 'NONE';
}

/** Average price as the exact fraction num/den at the symbol's price scale. */
export interface AvgPrice {
  readonly num: bigint;
  readonly den: bigint;
}

/** Reject helper. */
export function reject(reason: RejectReasonName, message: string): Rejected {
  return { ok: false, reason, message };
}

/**
 * Types that take timeInForce: the limit types that can rest on the book. The spec does not say;
 * LIMIT_MAKER is post-only by nature and the market types never rest, so this engine refuses one
 * there. (The same members as ICEBERG_ORDER_TYPES, for another reason.)
 */
const TAKES_TIF: ReadonlySet<OrderTypeName> = new Set(['LIMIT', 'STOP_LOSS_LIMIT', 'TAKE_PROFIT_LIMIT']);

/** What an order type needs and allows (core's per-type rules), looked up once per order instead of one set lookup per rule. */
interface TypeRule {
  readonly needsPrice: boolean;
  readonly needsStop: boolean;
  readonly takesTif: boolean;
  readonly isAlgo: boolean;
  /** MARKET, or STOP_LOSS / TAKE_PROFIT (market once triggered). */
  readonly marketType: boolean;
}
const typeRule = (t: OrderTypeName): TypeRule => ({
  needsPrice: PRICED_ORDER_TYPES.has(t),
  needsStop: STOP_ORDER_TYPES.has(t),
  takesTif: TAKES_TIF.has(t),
  isAlgo: ALGO_ORDER_TYPES.has(t),
  marketType: MARKET_EXECUTION_ORDER_TYPES.has(t),
});
const TYPE_RULES = new Map<string, TypeRule>((Object.keys(OrderType) as OrderTypeName[]).map((t) => [t, typeRule(t)]));
/**
 * A type outside the enum (possible when a symbol lists no order types) gets the rules of none.
 * Built by typeRule too, so every rule object has one shape (a monomorphic read in validateNew).
 */
const NO_RULE = typeRule('' as OrderTypeName);
const LIMIT_RULE = TYPE_RULES.get('LIMIT')!;
const MARKET_RULE = TYPE_RULES.get('MARKET')!;
/** TYPE_RULES.get(type) ?? NO_RULE, without the map lookup for the two types most orders have. */
function ruleOf(type: string): TypeRule {
  if (type === 'LIMIT') return LIMIT_RULE;
  if (type === 'MARKET') return MARKET_RULE;
  return TYPE_RULES.get(type) ?? NO_RULE;
}

/** A multiplier m as the exact fraction n / d. */
interface Frac {
  readonly n: bigint;
  readonly d: bigint;
}
const fracCache = new WeakMap<Decimal, Frac>();
/** Exact fraction of a Decimal (cached per instance: filters are parsed once). */
export function frac(x: Decimal): Frac {
  let f = fracCache.get(x);
  if (f === undefined) {
    const k = Math.max(0, x.decimalPlaces());
    f = { n: BigInt(x.mul(10 ** k).toFixed(0)), d: 10n ** BigInt(k) };
    fracCache.set(x, f);
  }
  return f;
}

function parseField(sym: Sym, field: string, v: DecimalInput, scale: number, filter: RejectReasonName, unit: string): number | Rejected {
  const s = toScaled(v, scale);
  if (s === -1) return reject('INVALID_PARAMETER', `${field} ${String(v)} is not a non-negative decimal`);
  if (s === -2) return reject(filter, `${field} ${String(v)} has more decimals than ${sym.name} allows (${scale}, the ${unit})`);
  if (s === -3) return reject('INVALID_PARAMETER', `${field} ${String(v)} is too large`);
  return s;
}

function checkPrice(sym: Sym, field: string, p: number): Rejected | undefined {
  if (sym.minPrice > 0 && p < sym.minPrice) return reject('PRICE_FILTER', `${field} ${fmt(p, sym.pd)} is below minPrice ${fmt(sym.minPrice, sym.pd)}`);
  if (sym.maxPrice > 0 && p > sym.maxPrice) return reject('PRICE_FILTER', `${field} ${fmt(p, sym.pd)} is above maxPrice ${fmt(sym.maxPrice, sym.pd)}`);
  if (sym.tick > 0 && (p - sym.minPrice) % sym.tick !== 0) return reject('PRICE_FILTER', `${field} ${fmt(p, sym.pd)} is not minPrice plus a multiple of tickSize ${fmt(sym.tick, sym.pd)}`);
  return undefined;
}

function checkLot(sym: Sym, lot: ScaledLot, field: string, q: number, reason: 'LOT_SIZE' | 'MARKET_LOT_SIZE'): Rejected | undefined {
  if (lot.min > 0 && q < lot.min) return reject(reason, `${field} ${fmt(q, sym.qd)} is below ${reason} minQty ${fmt(lot.min, sym.qd)}`);
  if (lot.max > 0 && q > lot.max) return reject(reason, `${field} ${fmt(q, sym.qd)} is above ${reason} maxQty ${fmt(lot.max, sym.qd)}`);
  if (lot.step > 0 && (q - lot.min) % lot.step !== 0) return reject(reason, `${field} ${fmt(q, sym.qd)} is not minQty plus a multiple of ${reason} stepSize ${fmt(lot.step, sym.qd)}`);
  return undefined;
}

/** PERCENT_PRICE: weighted average * multiplierDown <= price <= weighted average * multiplierUp. */
function checkPercent(sym: Sym, field: string, p: number, avg: AvgPrice | null): Rejected | undefined {
  const pp = sym.info.filters.percentPrice;
  if (pp === undefined || avg === null) return undefined;
  const up = frac(pp.multiplierUp);
  const down = frac(pp.multiplierDown);
  const lhs = BigInt(p) * avg.den;
  if (lhs * up.d > avg.num * up.n) return reject('PERCENT_PRICE', `${field} ${fmt(p, sym.pd)} is above the average price times multiplierUp ${pp.multiplierUp.toFixed()}`);
  if (lhs * down.d < avg.num * down.n) return reject('PERCENT_PRICE', `${field} ${fmt(p, sym.pd)} is below the average price times multiplierDown ${pp.multiplierDown.toFixed()}`);
  return undefined;
}

/** NOTIONAL on an exact notional num/den at notional scale. */
export function checkNotional(sym: Sym, num: bigint, den: bigint, what: string): Rejected | undefined {
  const nf = sym.info.filters.notional;
  if (nf === undefined) return undefined;
  const scale = 10n ** BigInt(sym.pd + sym.qd);
  const min = frac(nf.minNotional);
  // notional/scale < min.n/min.d  <=>  num * min.d < min.n * den * scale
  if (num * min.d < min.n * den * scale) return reject('NOTIONAL', `notional ${what} is below minNotional ${nf.minNotional.toFixed()}`);
  if (!nf.maxNotional.isZero()) {
    const max = frac(nf.maxNotional);
    if (num * max.d > max.n * den * scale) return reject('NOTIONAL', `notional ${what} is above maxNotional ${nf.maxNotional.toFixed()}`);
  }
  return undefined;
}

/** Everything the entry checks need from the engine. */
export interface EntryContext {
  readonly exchange: ExchangeFilters;
  /** Average price over `mins` minutes (0: last price); null when there is no trade yet. */
  avg(sym: Sym, mins: number): AvgPrice | null;
}

/** Runs every entry check of a new order; `extraOrders` is 2 for an OCO list. */
export function validateNew(ctx: EntryContext, sym: Sym, acct: Acct, req: NewOrderRequest, extraOrders = 1, out?: DraftBuf): Draft | Rejected {
  const type = req.type;
  const isBuy = req.side === 'BUY';
  const rule = ruleOf(type);
  const marketType = rule.marketType;
  const refused = checkAccess(sym, acct, type) ?? checkParameters(req, type, rule, isBuy);
  if (refused !== undefined) return refused;
  // Orders without a timeInForce report GTC, as the exchange's order views do.
  const tif: TimeInForceName = req.timeInForce ?? 'GTC';

  const price = req.price === undefined ? 0 : parseField(sym, 'price', req.price, sym.pd, 'PRICE_FILTER', 'tickSize');
  if (typeof price !== 'number') return price;
  const stop = req.stopPrice === undefined ? 0 : parseField(sym, 'stopPrice', req.stopPrice, sym.pd, 'PRICE_FILTER', 'tickSize');
  if (typeof stop !== 'number') return stop;
  const qty = req.quantity === undefined ? 0 : parseField(sym, 'quantity', req.quantity, sym.qd, marketType ? 'MARKET_LOT_SIZE' : 'LOT_SIZE', 'stepSize');
  if (typeof qty !== 'number') return qty;
  const iceberg = req.icebergQty === undefined ? 0 : parseField(sym, 'icebergQty', req.icebergQty, sym.qd, 'LOT_SIZE', 'stepSize');
  if (typeof iceberg !== 'number') return iceberg;
  let quoteQty = 0n;
  if (req.quoteOrderQty !== undefined) {
    const q = parseField(sym, 'quoteOrderQty', req.quoteOrderQty, sym.pd + sym.qd, 'INVALID_PARAMETER', 'notional scale');
    if (typeof q !== 'number') return q;
    if (q === 0) return reject('INVALID_PARAMETER', 'quoteOrderQty must be positive');
    quoteQty = BigInt(q);
  }
  if (req.quantity !== undefined && qty === 0) return reject('INVALID_PARAMETER', 'quantity must be positive');
  if (rule.needsPrice && price === 0) return reject('INVALID_PARAMETER', 'price must be positive');
  if (rule.needsStop && stop === 0) return reject('INVALID_PARAMETER', 'stopPrice must be positive');
  const stp = req.stpMode ?? sym.info.defaultSelfTradePreventionMode;
  const bad =
    (iceberg > 0 ? checkIceberg(sym, type, tif, qty, iceberg) : undefined) ??
    checkStpMode(sym, stp) ??
    checkFilters(ctx, sym, marketType, price, stop, qty, iceberg, quoteQty) ??
    checkOpenLimits(ctx, sym, acct, rule.isAlgo, iceberg, extraOrders);
  if (bad !== undefined) return bad;
  if (out === undefined) return { isBuy, type, tif, price, stop, qty, quoteQty, iceberg, stp };
  out.isBuy = isBuy;
  out.type = type;
  out.tif = tif;
  out.price = price;
  out.stop = stop;
  out.qty = qty;
  out.quoteQty = quoteQty;
  out.iceberg = iceberg;
  out.stp = stp;
  return out;
}

/** The account may trade, the symbol trades and lists the order type. */
function checkAccess(sym: Sym, acct: Acct, type: OrderTypeName): Rejected | undefined {
  const info = sym.info;
  if (!acct.canTrade) return reject('TRADING_DISABLED', `account ${acct.id} cannot trade`);
  if (!info.spotTradingEnable) return reject('TRADING_DISABLED', `spot trading is disabled on ${sym.name}`);
  if (info.orderTypes.length > 0 && !info.orderTypes.includes(type)) return reject('ORDER_TYPE_NOT_SUPPORTED', `type ${type} is not supported on ${sym.name}`);
  return undefined;
}

/** Parameters per type (the spec's "additional mandatory parameters by type"). */
function checkParameters(req: NewOrderRequest, type: OrderTypeName, rule: TypeRule, isBuy: boolean): Rejected | undefined {
  if (rule.needsPrice && req.price === undefined) return reject('MISSING_PARAMETER', `price is required for ${type}`);
  if (!rule.needsPrice && req.price !== undefined) return reject('INVALID_PARAMETER', `price ${String(req.price)} is not allowed for ${type}`);
  if (rule.needsStop && req.stopPrice === undefined) return reject('MISSING_PARAMETER', `stopPrice is required for ${type}`);
  if (!rule.needsStop && req.stopPrice !== undefined) return reject('INVALID_PARAMETER', `stopPrice ${String(req.stopPrice)} is not allowed for ${type}`);
  if (type === 'MARKET') {
    if (req.quantity !== undefined && req.quoteOrderQty !== undefined) return reject('INVALID_PARAMETER', 'send quantity or quoteOrderQty, not both');
    if (req.quantity === undefined && (req.quoteOrderQty === undefined || !isBuy)) {
      return reject('MISSING_PARAMETER', isBuy ? 'MARKET BUY needs quantity or quoteOrderQty' : 'quantity is required for MARKET SELL');
    }
  } else {
    if (req.quantity === undefined) return reject('MISSING_PARAMETER', `quantity is required for ${type}`);
    if (req.quoteOrderQty !== undefined) return reject('INVALID_PARAMETER', `quoteOrderQty is only allowed for MARKET, not ${type}`);
  }
  if (req.timeInForce !== undefined && !rule.takesTif) return reject('INVALID_PARAMETER', `timeInForce ${req.timeInForce} is not allowed for ${type}`);
  return undefined;
}

/** Iceberg orders: only limit types, GTC, enabled on the symbol, within ICEBERG_PARTS. */
function checkIceberg(sym: Sym, type: OrderTypeName, tif: TimeInForceName, qty: number, iceberg: number): Rejected | undefined {
  const info = sym.info;
  if (type !== 'LIMIT' && type !== 'STOP_LOSS_LIMIT' && type !== 'TAKE_PROFIT_LIMIT') return reject('ORDER_TYPE_NOT_SUPPORTED', `icebergQty is not allowed for ${type}`);
  if (!info.icebergEnable) return reject('ICEBERG_DISABLED', `iceberg orders are disabled on ${sym.name}`);
  if (tif !== 'GTC') return reject('ICEBERG_NOT_GTC', `an order with icebergQty needs timeInForce GTC, not ${tif}`);
  if (iceberg >= qty) return reject('INVALID_PARAMETER', `icebergQty ${fmt(iceberg, sym.qd)} must be below quantity ${fmt(qty, sym.qd)}`);
  const parts = Math.ceil(qty / iceberg);
  const limit = info.filters.icebergPartsLimit;
  if (limit !== undefined && parts > limit) return reject('ICEBERG_PARTS', `quantity / icebergQty needs ${parts} parts, above ICEBERG_PARTS limit ${limit}`);
  return undefined;
}

/** Self-trade prevention mode: the symbol's default, and only modes the symbol allows. */
function checkStpMode(sym: Sym, stp: StpModeName): Rejected | undefined {
  const allowed = sym.info.allowedSelfTradePreventionModes;
  if (stp === 'NONE' || (allowed.length > 0 && !allowed.includes(stp))) return reject('STP_MODE_NOT_ALLOWED', `selfTradePreventionMode ${stp} is not allowed on ${sym.name}`);
  return undefined;
}

/** PRICE_FILTER, PERCENT_PRICE, LOT_SIZE, MARKET_LOT_SIZE and NOTIONAL on the parsed amounts. */
function checkFilters(ctx: EntryContext, sym: Sym, marketType: boolean, price: number, stop: number, qty: number, iceberg: number, quoteQty: bigint): Rejected | undefined {
  const info = sym.info;
  // PRICE_FILTER on price and stopPrice.
  if (price > 0) {
    const r = checkPrice(sym, 'price', price);
    if (r) return r;
  }
  if (stop > 0) {
    const r = checkPrice(sym, 'stopPrice', stop);
    if (r) return r;
  }
  // PERCENT_PRICE on the limit price.
  const pp = info.filters.percentPrice;
  if (pp !== undefined && price > 0) {
    const r = checkPercent(sym, 'price', price, ctx.avg(sym, pp.avgPriceMins));
    if (r) return r;
  }
  // LOT_SIZE on quantity and icebergQty; MARKET_LOT_SIZE on market-type quantity.
  if (sym.lot !== undefined && qty > 0) {
    const r = checkLot(sym, sym.lot, 'quantity', qty, 'LOT_SIZE') ?? (iceberg > 0 ? checkLot(sym, sym.lot, 'icebergQty', iceberg, 'LOT_SIZE') : undefined);
    if (r) return r;
  }
  if (sym.mlot !== undefined && marketType && qty > 0) {
    const r = checkLot(sym, sym.mlot, 'quantity', qty, 'MARKET_LOT_SIZE');
    if (r) return r;
  }
  return checkOrderNotional(ctx, sym, marketType, price, qty, quoteQty);
}

/** NOTIONAL: price * quantity for priced orders; market orders only with applyToMarket, at the average price. */
function checkOrderNotional(ctx: EntryContext, sym: Sym, marketType: boolean, price: number, qty: number, quoteQty: bigint): Rejected | undefined {
  const nf = sym.info.filters.notional;
  if (nf === undefined) return undefined;
  if (!marketType) {
    // Fast path: bounds that are whole numbers at notional scale compare as safe integers.
    const n = price * qty;
    const fast = sym.minNotional >= 0 && n < 9007199254740992;
    if (fast && n >= sym.minNotional && !(sym.maxNotional > 0 && n > sym.maxNotional)) return undefined;
    return checkNotional(sym, BigInt(price) * BigInt(qty), 1n, `${fmt(price, sym.pd)} * ${fmt(qty, sym.qd)}`);
  }
  if (!nf.applyToMarket) return undefined;
  if (quoteQty > 0n) return checkNotional(sym, quoteQty, 1n, `quoteOrderQty ${fmt(Number(quoteQty), sym.pd + sym.qd)}`);
  const avg = ctx.avg(sym, nf.avgPriceMins);
  return avg === null ? undefined : checkNotional(sym, avg.num * BigInt(qty), avg.den, `average price * ${fmt(qty, sym.qd)}`);
}

/** Open-order limits of the symbol and the exchange, counting the new order(s). */
function checkOpenLimits(ctx: EntryContext, sym: Sym, acct: Acct, isAlgo: boolean, iceberg: number, extraOrders: number): Rejected | undefined {
  const c = acct.posIfAny(sym)?.counts ?? acct.open.get(sym.name);
  const all = (c?.all ?? 0) + extraOrders;
  const f = sym.info.filters;
  if (f.maxNumOrders !== undefined && all > f.maxNumOrders) return reject('MAX_NUM_ORDERS', `account would have ${all} open orders on ${sym.name}, above MAX_NUM_ORDERS ${f.maxNumOrders}`);
  if (isAlgo || extraOrders > 1) {
    const algo = (c?.algo ?? 0) + 1;
    if (f.maxNumAlgoOrders !== undefined && algo > f.maxNumAlgoOrders) return reject('MAX_NUM_ALGO_ORDERS', `account would have ${algo} open algo orders on ${sym.name}, above MAX_NUM_ALGO_ORDERS ${f.maxNumAlgoOrders}`);
  }
  if (iceberg > 0) {
    const ice = (c?.iceberg ?? 0) + 1;
    if (f.maxNumIcebergOrders !== undefined && ice > f.maxNumIcebergOrders) return reject('MAX_NUM_ICEBERG_ORDERS', `account would have ${ice} open iceberg orders on ${sym.name}, above MAX_NUM_ICEBERG_ORDERS ${f.maxNumIcebergOrders}`);
  }
  const ex = ctx.exchange;
  if (ex.maxNumOrders !== undefined && acct.totalOpen + extraOrders > ex.maxNumOrders) {
    return reject('EXCHANGE_MAX_NUM_ORDERS', `account would have ${acct.totalOpen + extraOrders} open orders, above EXCHANGE_MAX_NUM_ORDERS ${ex.maxNumOrders}`);
  }
  if ((isAlgo || extraOrders > 1) && ex.maxNumAlgoOrders !== undefined && acct.totalAlgo + 1 > ex.maxNumAlgoOrders) {
    return reject('EXCHANGE_MAX_NUM_ALGO_ORDERS', `account would have ${acct.totalAlgo + 1} open algo orders, above EXCHANGE_MAX_NUM_ALGO_ORDERS ${ex.maxNumAlgoOrders}`);
  }
  return undefined;
}
