/**
 * Symbol and exchange filters, parsed once from wire objects (numeric values may be strings).
 * Used by the risk checker, the matching engine and the sandbox, so one parse serves all.
 */
import { type Decimal, parseDecimal } from './decimal.js';
import { ParseError } from './errors.js';

/** PRICE_FILTER: a zero value disables that rule. */
export interface PriceFilter { readonly minPrice: Decimal; readonly maxPrice: Decimal; readonly tickSize: Decimal }
/** PERCENT_PRICE against the weighted average price over avgPriceMins (0: last price). */
export interface PercentPriceFilter { readonly multiplierUp: Decimal; readonly multiplierDown: Decimal; readonly avgPriceMins: number }
/** LOT_SIZE and MARKET_LOT_SIZE. */
export interface LotSizeFilter { readonly minQty: Decimal; readonly maxQty: Decimal; readonly stepSize: Decimal }
/** NOTIONAL; a zero maxNotional is read as "no maximum". */
export interface NotionalFilter { readonly minNotional: Decimal; readonly maxNotional: Decimal; readonly applyToMarket: boolean; readonly avgPriceMins: number }

/** Every filter of one symbol, by type; an absent filter is not enforced. */
export interface SymbolFilters {
  readonly priceFilter?: PriceFilter;
  readonly percentPrice?: PercentPriceFilter;
  readonly lotSize?: LotSizeFilter;
  readonly marketLotSize?: LotSizeFilter;
  readonly notional?: NotionalFilter;
  readonly icebergPartsLimit?: number;
  readonly maxNumOrders?: number;
  readonly maxNumAlgoOrders?: number;
  readonly maxNumIcebergOrders?: number;
}

/** Exchange-wide filters. */
export interface ExchangeFilters {
  readonly maxNumOrders?: number;
  readonly maxNumAlgoOrders?: number;
}

/** A filter object as it appears on the wire. */
export type WireFilter = { readonly filterType: string } & Readonly<Record<string, unknown>>;

function int(field: string, v: unknown): number {
  const n = typeof v === 'string' ? Number(v) : v;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < 0) throw new ParseError(field, v, 'expected a non-negative integer');
  return n;
}

function bool(field: string, v: unknown): boolean {
  if (typeof v === 'boolean') return v;
  if (v === 'true' || v === 1 || v === '1') return true;
  if (v === 'false' || v === 0 || v === '0' || v === undefined) return false;
  throw new ParseError(field, v, 'expected a boolean');
}

/** Parses a symbol's wire filters array. Unknown filter types are ignored (forward compatible). */
export function parseSymbolFilters(wire: readonly WireFilter[], where = 'filters'): SymbolFilters {
  const out: {
    -readonly [K in keyof SymbolFilters]: SymbolFilters[K];
  } = {};
  wire.forEach((f, i) => {
    const p = `${where}[${i}]`;
    switch (f.filterType) {
      case 'PRICE_FILTER':
        out.priceFilter = { minPrice: parseDecimal(`${p}.minPrice`, f.minPrice ?? '0'), maxPrice: parseDecimal(`${p}.maxPrice`, f.maxPrice ?? '0'), tickSize: parseDecimal(`${p}.tickSize`, f.tickSize ?? '0') };
        break;
      case 'PERCENT_PRICE':
        out.percentPrice = { multiplierUp: parseDecimal(`${p}.multiplierUp`, f.multiplierUp), multiplierDown: parseDecimal(`${p}.multiplierDown`, f.multiplierDown), avgPriceMins: int(`${p}.avgPriceMins`, f.avgPriceMins ?? 0) };
        break;
      case 'LOT_SIZE':
      case 'MARKET_LOT_SIZE': {
        const lot = { minQty: parseDecimal(`${p}.minQty`, f.minQty ?? '0'), maxQty: parseDecimal(`${p}.maxQty`, f.maxQty ?? '0'), stepSize: parseDecimal(`${p}.stepSize`, f.stepSize ?? '0') };
        if (f.filterType === 'LOT_SIZE') out.lotSize = lot;
        else out.marketLotSize = lot;
        break;
      }
      case 'NOTIONAL':
        out.notional = { minNotional: parseDecimal(`${p}.minNotional`, f.minNotional ?? '0'), maxNotional: parseDecimal(`${p}.maxNotional`, f.maxNotional ?? '0'), applyToMarket: bool(`${p}.applyToMarket`, f.applyToMarket), avgPriceMins: int(`${p}.avgPriceMins`, f.avgPriceMins ?? 0) };
        break;
      case 'ICEBERG_PARTS':
        out.icebergPartsLimit = int(`${p}.limit`, f.limit);
        break;
      case 'MAX_NUM_ORDERS':
        out.maxNumOrders = int(`${p}.limit`, f.limit ?? f.maxNumOrders);
        break;
      case 'MAX_NUM_ALGO_ORDERS':
        out.maxNumAlgoOrders = int(`${p}.maxNumAlgoOrders`, f.maxNumAlgoOrders ?? f.limit);
        break;
      case 'MAX_NUM_ICEBERG_ORDERS':
        out.maxNumIcebergOrders = int(`${p}.maxNumIcebergOrders`, f.maxNumIcebergOrders ?? f.limit);
        break;
      default:
        break;
    }
  });
  return out;
}

/** Parses exchange filters. */
export function parseExchangeFilters(wire: readonly WireFilter[], where = 'exchangeFilters'): ExchangeFilters {
  const out: { maxNumOrders?: number; maxNumAlgoOrders?: number } = {};
  wire.forEach((f, i) => {
    const p = `${where}[${i}]`;
    if (f.filterType === 'EXCHANGE_MAX_NUM_ORDERS') out.maxNumOrders = int(`${p}.maxNumOrders`, f.maxNumOrders);
    else if (f.filterType === 'EXCHANGE_MAX_NUM_ALGO_ORDERS') out.maxNumAlgoOrders = int(`${p}.maxNumAlgoOrders`, f.maxNumAlgoOrders);
  });
  return out;
}

/** Serialises parsed symbol filters back to the wire form (strings for decimals, applyToMarket present). */
export function toWireFilters(f: SymbolFilters): WireFilter[] {
  const out: WireFilter[] = [];
  const s = (d: Decimal): string => d.toFixed();
  if (f.priceFilter) out.push({ filterType: 'PRICE_FILTER', minPrice: s(f.priceFilter.minPrice), maxPrice: s(f.priceFilter.maxPrice), tickSize: s(f.priceFilter.tickSize), applyToMarket: false });
  if (f.percentPrice) out.push({ filterType: 'PERCENT_PRICE', multiplierUp: s(f.percentPrice.multiplierUp), multiplierDown: s(f.percentPrice.multiplierDown), avgPriceMins: f.percentPrice.avgPriceMins, applyToMarket: false });
  if (f.lotSize) out.push({ filterType: 'LOT_SIZE', minQty: s(f.lotSize.minQty), maxQty: s(f.lotSize.maxQty), stepSize: s(f.lotSize.stepSize), applyToMarket: false });
  if (f.marketLotSize) out.push({ filterType: 'MARKET_LOT_SIZE', minQty: s(f.marketLotSize.minQty), maxQty: s(f.marketLotSize.maxQty), stepSize: s(f.marketLotSize.stepSize), applyToMarket: true });
  if (f.notional) out.push({ filterType: 'NOTIONAL', minNotional: s(f.notional.minNotional), maxNotional: s(f.notional.maxNotional), applyToMarket: f.notional.applyToMarket, avgPriceMins: f.notional.avgPriceMins });
  if (f.icebergPartsLimit !== undefined) out.push({ filterType: 'ICEBERG_PARTS', limit: f.icebergPartsLimit, applyToMarket: false });
  if (f.maxNumOrders !== undefined) out.push({ filterType: 'MAX_NUM_ORDERS', limit: f.maxNumOrders, applyToMarket: false });
  if (f.maxNumAlgoOrders !== undefined) out.push({ filterType: 'MAX_NUM_ALGO_ORDERS', maxNumAlgoOrders: f.maxNumAlgoOrders, applyToMarket: false });
  if (f.maxNumIcebergOrders !== undefined) out.push({ filterType: 'MAX_NUM_ICEBERG_ORDERS', maxNumIcebergOrders: f.maxNumIcebergOrders, applyToMarket: false });
  return out;
}

