/**
 * Exchange rules compiled once per symbol for the risk checker: the parsed filters (Decimals,
 * for the reference path and messages) plus the same parameters as scaled integers on the
 * symbol's price and quantity grids, so the hot path compares plain numbers.
 */
import type { Decimal } from '../core/decimal.js';
import type { OrderTypeName, StpModeName } from '../core/enums.js';
import type { ExchangeFilters, LotSizeFilter } from '../core/filters.js';
import { ICEBERG_ORDER_TYPES, MARKET_EXECUTION_ORDER_TYPES, PRICED_ORDER_TYPES, STOP_ORDER_TYPES } from '../core/orderRules.js';
import { marketSymbol, splitSymbol } from '../core/symbols.js';
import type { PriceRangeRule, SymbolInfo } from '../core/types.js';
import { SymbolSlots } from './boundsCache.js';
import { ceilProduct, floorProduct, toScaled, unpack, unpacked } from './scaled.js';

/** LOT_SIZE / MARKET_LOT_SIZE on the quantity grid (0 disables a bound or the step). */
export interface ScaledLot {
  readonly min: number;
  readonly max: number;
  readonly step: number;
  /** `max`, or Infinity when it is 0 (no maximum): one comparison on the hot path. */
  readonly cap: number;
}

/** A decimal multiplier as mantissa * 10^exp (for exact products with unpacked prices). */
export interface ScaledFactor {
  readonly m: number;
  readonly e: number;
}

/** Scaled parameters of one symbol; absent (`fast` false) when some parameter does not fit. */
export interface ScaledSymbol {
  /** Decimals of the price grid. */
  readonly ps: number;
  /** Decimals of the quantity grid. */
  readonly qs: number;
  readonly minPrice: number;
  readonly maxPrice: number;
  /** `maxPrice`, or Infinity when it is 0 (no maximum). */
  readonly priceCap: number;
  readonly tick: number;
  readonly lot: ScaledLot | undefined;
  readonly marketLot: ScaledLot | undefined;
  readonly minNotional: ScaledFactor | undefined;
  /** maxNotional; undefined also when it is 0 ("no maximum"). */
  readonly maxNotional: ScaledFactor | undefined;
  readonly percentUp: ScaledFactor | undefined;
  readonly percentDown: ScaledFactor | undefined;
  readonly bidUp: ScaledFactor | undefined;
  readonly bidDown: ScaledFactor | undefined;
  readonly askUp: ScaledFactor | undefined;
  readonly askDown: ScaledFactor | undefined;
  /** NOTIONAL bounds on the notional grid (10^-(ps+qs)): ceil(minNotional), floor(maxNotional); NaN when not exact. */
  readonly minNotionalGrid: number;
  readonly maxNotionalGrid: number;
  /** Bounds derived from context values, per context (an invisible cache; see boundsCache.ts). */
  readonly slots: SymbolSlots;
}

/** Everything the checker needs about one symbol. */
export interface SymbolRules {
  readonly info: SymbolInfo;
  readonly base: string;
  readonly quote: string;
  readonly orderTypes: ReadonlySet<OrderTypeName>;
  /** `orderTypes` as a bit set over `typeTraits` indices (one AND on the hot path instead of a set lookup). */
  readonly orderTypeMask: number;
  readonly stpModes: ReadonlySet<StpModeName>;
  /** PRICE_RANGE rule; kept only for symbol type 1, the only type it applies to. */
  readonly priceRange: PriceRangeRule | undefined;
  /** Scaled parameters, or undefined when the symbol must always take the decimal path. */
  readonly scaled: ScaledSymbol | undefined;
}

/** Compiled rules of a run: per-symbol rules and the exchange filters. */
export interface RiskRules {
  readonly symbols: ReadonlyMap<string, SymbolRules>;
  readonly exchange: ExchangeFilters;
}

/** Order types that carry a limit price (core's per-type rule). */
export const PRICED_TYPES: ReadonlySet<OrderTypeName> = PRICED_ORDER_TYPES;
/** Order types that execute as market orders (MARKET_LOT_SIZE applies; notional estimated). */
export const MARKET_TYPES: ReadonlySet<OrderTypeName> = MARKET_EXECUTION_ORDER_TYPES;
/** Order types that need stopPrice. */
export const STOP_TYPES: ReadonlySet<OrderTypeName> = STOP_ORDER_TYPES;
/** Order types that may carry icebergQty (spec: LIMIT, STOP_LOSS_LIMIT, TAKE_PROFIT_LIMIT). */
export const ICEBERG_TYPES: ReadonlySet<OrderTypeName> = ICEBERG_ORDER_TYPES;

/** Trait bits of an order type (see `typeTraits`). */
export const T_PRICED = 1;
/** Executes as a market order. */
export const T_MARKET = 2;
/** Needs stopPrice (an algo order). */
export const T_STOP = 4;
/** May carry icebergQty. */
export const T_ICEBERG = 8;
/** Shift of the type's own bit (`1 << (index + T_SHIFT)`), above the trait bits. */
const T_SHIFT = 4;

/**
 * The order type's traits (T_* bits, the same sets as PRICED_TYPES, MARKET_TYPES, STOP_TYPES and
 * ICEBERG_TYPES, i.e. core's orderRules; rules.test.ts holds the switch to them) plus its own bit
 * for `SymbolRules.orderTypeMask`; 0 for a string that is no order type. A switch on interned
 * strings costs a few pointer compares, far less than set lookups.
 */
export function typeTraits(type: string): number {
  switch (type) {
    case 'LIMIT':
      return T_PRICED | T_ICEBERG | (1 << T_SHIFT);
    case 'MARKET':
      return T_MARKET | (2 << T_SHIFT);
    case 'LIMIT_MAKER':
      return T_PRICED | (4 << T_SHIFT);
    case 'STOP_LOSS_LIMIT':
      return T_PRICED | T_STOP | T_ICEBERG | (8 << T_SHIFT);
    case 'TAKE_PROFIT_LIMIT':
      return T_PRICED | T_STOP | T_ICEBERG | (16 << T_SHIFT);
    case 'STOP_LOSS':
      return T_MARKET | T_STOP | (32 << T_SHIFT);
    case 'TAKE_PROFIT':
      return T_MARKET | T_STOP | (64 << T_SHIFT);
    default:
      return 0;
  }
}

/** The bits of `typeTraits` that name the type itself. */
export const TYPE_BITS = ~(T_PRICED | T_MARKET | T_STOP | T_ICEBERG);

/** Grid decimals used for a side that has no filter: values with more decimals take the decimal path. */
const DEFAULT_SCALE = 8;
/** Grids finer than this make products too large for the fast path to be worth it. */
const MAX_SCALE = 12;

function decimals(d: Decimal): number {
  return Math.max(0, d.decimalPlaces());
}

function lotDecimals(l: LotSizeFilter | undefined): number {
  return l ? Math.max(decimals(l.minQty), decimals(l.maxQty), decimals(l.stepSize)) : 0;
}

function factor(d: Decimal | undefined): ScaledFactor | undefined | null {
  if (d === undefined) return undefined;
  if (!unpack(d)) return null;
  return { m: unpacked.m, e: unpacked.e };
}

function scaledLot(l: LotSizeFilter | undefined, qs: number): ScaledLot | undefined | null {
  if (!l) return undefined;
  const min = toScaled(l.minQty, qs);
  const max = toScaled(l.maxQty, qs);
  const step = toScaled(l.stepSize, qs);
  if (Number.isNaN(min) || Number.isNaN(max) || Number.isNaN(step)) return null;
  return { min, max, step, cap: max > 0 ? max : Infinity };
}

function compileScaled(info: SymbolInfo, range: PriceRangeRule | undefined): ScaledSymbol | undefined {
  const f = info.filters;
  const pf = f.priceFilter;
  // Without a tick (or a step) any number of decimals is legal: use a fine grid so that typical
  // values stay on the fast path; values finer still take the decimal path.
  const ticked = pf !== undefined && !pf.tickSize.isZero();
  const stepped = (f.lotSize !== undefined && !f.lotSize.stepSize.isZero()) || (f.marketLotSize !== undefined && !f.marketLotSize.stepSize.isZero());
  const pDec = pf ? Math.max(decimals(pf.minPrice), decimals(pf.maxPrice), decimals(pf.tickSize)) : 0;
  const qDec = Math.max(lotDecimals(f.lotSize), lotDecimals(f.marketLotSize));
  const ps = ticked ? pDec : Math.max(pDec, DEFAULT_SCALE);
  const qs = stepped ? qDec : Math.max(qDec, DEFAULT_SCALE);
  if (ps > MAX_SCALE || qs > MAX_SCALE) return undefined;
  const minPrice = pf ? toScaled(pf.minPrice, ps) : 0;
  const maxPrice = pf ? toScaled(pf.maxPrice, ps) : 0;
  const tick = pf ? toScaled(pf.tickSize, ps) : 0;
  const lot = scaledLot(f.lotSize, qs);
  const marketLot = scaledLot(f.marketLotSize, qs);
  const factors = [
    factor(f.notional?.minNotional),
    factor(f.notional && !f.notional.maxNotional.isZero() ? f.notional.maxNotional : undefined),
    factor(f.percentPrice?.multiplierUp),
    factor(f.percentPrice?.multiplierDown),
    factor(range?.bidLimitMultUp),
    factor(range?.bidLimitMultDown),
    factor(range?.askLimitMultUp),
    factor(range?.askLimitMultDown),
  ] as const;
  const nums = [minPrice, maxPrice, tick];
  if (nums.some(Number.isNaN) || lot === null || marketLot === null || factors.some((x) => x === null)) return undefined;
  const [minNotional, maxNotional, percentUp, percentDown, bidUp, bidDown, askUp, askDown] = factors as readonly (ScaledFactor | undefined)[];
  const ns = ps + qs;
  const minNotionalGrid = minNotional ? ceilProduct(minNotional.m, minNotional.e, 1, 0, ns) : -Infinity;
  const maxNotionalGrid = maxNotional ? floorProduct(maxNotional.m, maxNotional.e, 1, 0, ns) : Infinity;
  return { ps, qs, minPrice, maxPrice, priceCap: maxPrice > 0 ? maxPrice : Infinity, tick, lot, marketLot, minNotional, maxNotional, percentUp, percentDown, bidUp, bidDown, askUp, askDown, minNotionalGrid, maxNotionalGrid, slots: new SymbolSlots() };
}

/** Compiles one symbol's rules. */
export function compileSymbolRules(info: SymbolInfo, priceRange?: PriceRangeRule): SymbolRules {
  const { base, quote } = splitSymbol(info.symbol);
  // The spec: "The rule applies only to symbols with symbolType 1".
  const range = info.type === 1 ? priceRange : undefined;
  return {
    info,
    base,
    quote,
    orderTypes: new Set(info.orderTypes),
    orderTypeMask: info.orderTypes.reduce((mask, t) => mask | (typeTraits(t) & TYPE_BITS), 0),
    stpModes: new Set(info.allowedSelfTradePreventionModes),
    priceRange: range,
    scaled: compileScaled(info, range),
  };
}

/** Compiles the rules of a run from the exchange's symbols, exchange filters and execution rules. */
export function compileRiskRules(symbols: readonly SymbolInfo[], exchange: ExchangeFilters = {}, priceRanges: readonly PriceRangeRule[] = []): RiskRules {
  const ranges = new Map(priceRanges.map((r) => [r.symbol, r]));
  const map = new Map<string, SymbolRules>();
  // executionRules come from the market host, where type 1 symbols have no underscore: accept both spellings.
  for (const s of symbols) map.set(s.symbol, compileSymbolRules(s, ranges.get(s.symbol) ?? ranges.get(marketSymbol(s.symbol, s.type))));
  return { symbols: map, exchange };
}
