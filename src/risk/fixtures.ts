/**
 * A realistic symbol set for risk tests and the benchmark: BTC_IDR shaped like the exchange's
 * (tick 1 IDR, step 0.00001 BTC, min notional 20,000 IDR) plus a symbol of type 2 and a
 * fine-grained one, with exchange filters and a PRICE_RANGE rule.
 */
import { Decimal } from '../core/decimal.js';
import type { WireFilter } from '../core/filters.js';
import type { RiskRules } from './rules.js';
import { makeRules, makeSymbol } from './testkit.js';

/** Wire filters of the BTC_IDR fixture. */
export const BTC_IDR_FILTERS: readonly WireFilter[] = [
  { filterType: 'PRICE_FILTER', minPrice: '1', maxPrice: '10000000000', tickSize: '1' },
  { filterType: 'PERCENT_PRICE', multiplierUp: '5', multiplierDown: '0.2', avgPriceMins: 5 },
  { filterType: 'LOT_SIZE', minQty: '0.00001', maxQty: '9000', stepSize: '0.00001' },
  { filterType: 'MARKET_LOT_SIZE', minQty: '0.0001', maxQty: '100', stepSize: '0.0001' },
  { filterType: 'NOTIONAL', minNotional: '20000', maxNotional: '10000000000', applyToMarket: true, avgPriceMins: 5 },
  { filterType: 'ICEBERG_PARTS', limit: 10 },
  { filterType: 'MAX_NUM_ORDERS', limit: 200 },
  { filterType: 'MAX_NUM_ALGO_ORDERS', maxNumAlgoOrders: 5 },
  { filterType: 'MAX_NUM_ICEBERG_ORDERS', maxNumIcebergOrders: 5 },
];

/** Wire filters of a fine-grained USDT pair (tick 0.01, step 0.00001). */
export const ETH_USDT_FILTERS: readonly WireFilter[] = [
  { filterType: 'PRICE_FILTER', minPrice: '0.01', maxPrice: '1000000', tickSize: '0.01' },
  { filterType: 'LOT_SIZE', minQty: '0.0001', maxQty: '9000', stepSize: '0.0001' },
  { filterType: 'NOTIONAL', minNotional: '5', maxNotional: '0', applyToMarket: false, avgPriceMins: 0 },
];

/** Tiny prices and huge quantities: products beyond 2^53, so the exact BigInt comparisons run. */
export const PEPE_IDR_FILTERS: readonly WireFilter[] = [
  { filterType: 'PRICE_FILTER', minPrice: '0.00000001', maxPrice: '1000', tickSize: '0.00000001' },
  { filterType: 'PERCENT_PRICE', multiplierUp: '1.3', multiplierDown: '0.7', avgPriceMins: 0 },
  { filterType: 'LOT_SIZE', minQty: '1', maxQty: '900000000000', stepSize: '1' },
  { filterType: 'MARKET_LOT_SIZE', minQty: '10', maxQty: '90000000000', stepSize: '10' },
  { filterType: 'NOTIONAL', minNotional: '10000', maxNotional: '0', applyToMarket: true, avgPriceMins: 0 },
];

/** Whole-unit quantities and no price rule at all: prices may carry any number of decimals. */
const COARSE_FILTERS: readonly WireFilter[] = [
  { filterType: 'PRICE_FILTER', minPrice: '0', maxPrice: '0', tickSize: '0' },
  { filterType: 'LOT_SIZE', minQty: '1', maxQty: '0', stepSize: '1' },
];

/**
 * The fixture symbols: BTC_IDR (type 1, PRICE_RANGE), ETH_USDT (type 1, few order types),
 * DOGE_IDR (type 1, no tick rule, PRICE_RANGE up only), XRP_IDR (as DOGE_IDR but type 2) and
 * PEPE_IDR (8-decimal prices, quantities up to 9e11).
 */
export function fixtureRules(): RiskRules {
  return makeRules(
    [
      makeSymbol('BTC_IDR', BTC_IDR_FILTERS),
      makeSymbol('ETH_USDT', ETH_USDT_FILTERS, { orderTypes: ['LIMIT', 'MARKET', 'LIMIT_MAKER', 'STOP_LOSS_LIMIT'], icebergEnable: false, allowedSelfTradePreventionModes: ['EXPIRE_MAKER', 'EXPIRE_TAKER'] }),
      makeSymbol('DOGE_IDR', COARSE_FILTERS),
      makeSymbol('XRP_IDR', COARSE_FILTERS, { type: 2 }),
      makeSymbol('PEPE_IDR', PEPE_IDR_FILTERS),
    ],
    [
      { filterType: 'EXCHANGE_MAX_NUM_ORDERS', maxNumOrders: 1000 },
      { filterType: 'EXCHANGE_MAX_NUM_ALGO_ORDERS', maxNumAlgoOrders: 200 },
    ],
    [
      { symbol: 'BTCIDR', bidLimitMultUp: new Decimal('1.1'), bidLimitMultDown: new Decimal('0.5'), askLimitMultUp: new Decimal('2'), askLimitMultDown: new Decimal('0.9') },
      { symbol: 'DOGE_IDR', bidLimitMultUp: new Decimal('1.01') },
      { symbol: 'XRP_IDR', bidLimitMultUp: new Decimal('1.01') },
    ],
  );
}
