/**
 * Symbol-type routing of the market-data endpoints: which host, which path, which spelling.
 *
 * Spec rows: depth/aggTrades/klines type 1 -> {market_url}/api/v3/<x> with the underscore
 * removed; type 3 -> {depth_url}/api/v1/<x>; trades type 1 -> {market_url}/api/v3/trades,
 * every other type -> {base_url}/open/v1/market/trades.
 *
 * Type 2 (NEXT) for depth, aggTrades and klines is not shown. We send it to
 * {base_url}/open/v1/market/<x> with the BASE_QUOTE spelling: the trades row already routes
 * non-type-1 symbols to that path family on the main host, and real answers recorded from
 * /open/v1/market/{depth,aggTrades,klines} exist (see ../shared/data, ccxt fixture) carrying
 * the open envelope.
 */
import { marketSymbol, type SymbolTypeCode } from '../../core/index.js';

/** Hosts of the open API. */
export interface OpenHosts {
  readonly baseUrl: string;
  readonly marketUrl: string;
  readonly depthUrl: string;
}

/** Market-data endpoints that are routed by symbol type. */
export type MarketEndpoint = 'depth' | 'trades' | 'aggTrades' | 'klines';

/** Where one market-data call goes. */
export interface MarketRoute {
  readonly baseUrl: string;
  readonly path: string;
  /** Symbol as spelled on that host. */
  readonly symbol: string;
}

/** Resolves host, path and symbol spelling for a market-data call. */
export function routeMarket(hosts: OpenHosts, endpoint: MarketEndpoint, symbol: string, symbolType: SymbolTypeCode): MarketRoute {
  if (symbolType === 1) return { baseUrl: hosts.marketUrl, path: `/api/v3/${endpoint}`, symbol: marketSymbol(symbol, 1) };
  if (symbolType === 3 && endpoint !== 'trades') return { baseUrl: hosts.depthUrl, path: `/api/v1/${endpoint}`, symbol: marketSymbol(symbol, 3) };
  return { baseUrl: hosts.baseUrl, path: `/open/v1/market/${endpoint}`, symbol };
}
