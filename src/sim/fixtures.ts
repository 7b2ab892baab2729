/**
 * Ready-made symbol and account configurations for tests, benchmarks and examples of the engine.
 * Values follow the BTC_IDR excerpt in ../shared/data (tick 1, step 0.00001, minNotional 20000)
 * unless a test overrides them.
 */
import { Decimal } from '../core/decimal.js';
import type { StpModeName } from '../core/enums.js';
import { parseSymbolFilters, type WireFilter } from '../core/filters.js';
import type { SymbolInfo } from '../core/types.js';
import type { SimAccountConfig } from './types.js';

/** Builds a SymbolInfo from wire filters with every order type, icebergs, OCO and all STP modes enabled. */
export function symbolInfo(symbol: string, filters: readonly WireFilter[], overrides: Partial<SymbolInfo> = {}): SymbolInfo {
  const [baseAsset = 'BASE', quoteAsset = 'QUOTE'] = symbol.split('_');
  const allowed: StpModeName[] = ['EXPIRE_MAKER', 'EXPIRE_TAKER', 'EXPIRE_BOTH', 'DECREMENT', 'TRANSFER'];
  return {
    type: 1,
    symbol,
    baseAsset,
    quoteAsset,
    basePrecision: 8,
    quotePrecision: 8,
    filters: parseSymbolFilters(filters),
    orderTypes: ['LIMIT', 'MARKET', 'STOP_LOSS', 'STOP_LOSS_LIMIT', 'TAKE_PROFIT', 'TAKE_PROFIT_LIMIT', 'LIMIT_MAKER'],
    defaultSelfTradePreventionMode: 'EXPIRE_MAKER',
    allowedSelfTradePreventionModes: allowed,
    icebergEnable: true,
    ocoEnable: true,
    spotTradingEnable: true,
    marginTradingEnable: false,
    ...overrides,
  };
}

/** BTC_IDR-like filters: tick 1, step 0.00001, minNotional 20000. */
export const BTC_IDR_FILTERS: readonly WireFilter[] = [
  { filterType: 'PRICE_FILTER', minPrice: '1', maxPrice: '10000000000', tickSize: '1' },
  { filterType: 'LOT_SIZE', minQty: '0.00001', maxQty: '9000', stepSize: '0.00001' },
  { filterType: 'NOTIONAL', minNotional: '20000', maxNotional: '0', applyToMarket: true, avgPriceMins: 0 },
];

/** An account with the given balances (decimal strings) and commissions. */
export function account(id: string, balances: Record<string, string>, opts: { maker?: string; taker?: string; group?: string; canTrade?: boolean } = {}): SimAccountConfig {
  return {
    id,
    makerCommission: new Decimal(opts.maker ?? '0.001'),
    takerCommission: new Decimal(opts.taker ?? '0.002'),
    balances: Object.fromEntries(Object.entries(balances).map(([k, v]) => [k, new Decimal(v)])),
    ...(opts.group !== undefined ? { tradeGroupId: opts.group } : {}),
    ...(opts.canTrade !== undefined ? { canTrade: opts.canTrade } : {}),
  };
}
