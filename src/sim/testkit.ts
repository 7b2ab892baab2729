/**
 * Helpers for the engine's tests: a small test symbol, an engine with accounts, and compact views of
 * events, balances and books so assertions stay exact and readable.
 */
import type { WireFilter } from '../core/filters.js';
import type { SymbolInfo } from '../core/types.js';
import { MatchingEngine } from './engine.js';
import type { EngineEvent, ExecutionReportEvent } from './events.js';
import { account, symbolInfo } from './fixtures.js';
import type { EngineConfig, NewOrderRequest, PlaceResult, SimAccountConfig, SimSymbolConfig } from './types.js';

/** Test symbol filters: tick 0.01, step 0.001, minNotional 5. */
export const TEST_FILTERS: readonly WireFilter[] = [
  { filterType: 'PRICE_FILTER', minPrice: '0.01', maxPrice: '100000', tickSize: '0.01' },
  { filterType: 'LOT_SIZE', minQty: '0.001', maxQty: '1000', stepSize: '0.001' },
  { filterType: 'NOTIONAL', minNotional: '5', maxNotional: '0', applyToMarket: true, avgPriceMins: 0 },
];

/** The test symbol BTC_USDT with optional extra filters and overrides. */
export function testSymbol(extra: readonly WireFilter[] = [], overrides: Partial<SymbolInfo> = {}): SymbolInfo {
  const byType = new Map(TEST_FILTERS.map((f) => [f.filterType, f]));
  for (const f of extra) byType.set(f.filterType, f);
  return symbolInfo('BTC_USDT', [...byType.values()], overrides);
}

/** Options of makeEngine. */
export interface TestEngineOptions {
  readonly symbol?: Partial<SimSymbolConfig>;
  readonly accounts?: readonly SimAccountConfig[];
  readonly config?: Partial<EngineConfig>;
}

/** Accounts a and b (1000 USDT, 10 BTC each), maker 0.001, taker 0.002. */
export function makeEngine(opts: TestEngineOptions = {}): MatchingEngine {
  return new MatchingEngine({
    symbols: [{ info: testSymbol(), ...opts.symbol }],
    accounts: opts.accounts ?? [account('a', { USDT: '1000', BTC: '10' }), account('b', { USDT: '1000', BTC: '10' })],
    ...opts.config,
  });
}

/** Places an order on BTC_USDT and fails the test when refused. */
export function place(e: MatchingEngine, accountId: string, side: 'BUY' | 'SELL', req: Partial<NewOrderRequest>, now = 1): string {
  const r = e.placeOrder({ accountId, symbol: 'BTC_USDT', side, type: 'LIMIT', ...req }, now);
  if (!r.ok) throw new Error(`refused: ${r.reason} ${r.message}`);
  return r.orderId;
}

/** Places and returns the raw result. */
export function tryPlace(e: MatchingEngine, accountId: string, side: 'BUY' | 'SELL', req: Partial<NewOrderRequest>, now = 1): PlaceResult {
  return e.placeOrder({ accountId, symbol: 'BTC_USDT', side, type: 'LIMIT', ...req }, now);
}

/** Balances as {asset: 'free/locked'}. */
export function bal(e: MatchingEngine, accountId: string): Record<string, string> {
  return Object.fromEntries(e.balances(accountId).map((b) => [b.asset, `${b.free.toFixed()}/${b.locked.toFixed()}`]));
}

/** Book as ['bids: p x q, ...', 'asks: ...']. */
export function book(e: MatchingEngine, symbol = 'BTC_USDT'): { bids: string[]; asks: string[] } {
  const d = e.depth(symbol, 1000);
  return { bids: d.bids.map((l) => `${l.price.toFixed()}x${l.qty.toFixed()}`), asks: d.asks.map((l) => `${l.price.toFixed()}x${l.qty.toFixed()}`) };
}

/** Execution reports as compact strings: `acct id x/X l@L n N eR`. */
export function reports(events: readonly EngineEvent[]): string[] {
  return events
    .filter((e): e is ExecutionReportEvent => e.type === 'executionReport')
    .map((r) => `${r.accountId} ${r.i} ${r.x}/${r.X}${r.x === 'TRADE' ? ` ${r.l}@${r.L} fee ${r.n} ${r.N ?? ''}` : ''}${r.eR !== 'NONE' ? ` ${r.eR}` : ''}`);
}

/** Public trades as `price x qty buyer/seller m`. */
export function trades(events: readonly EngineEvent[]): string[] {
  return events.flatMap((e) => (e.type === 'trade' ? [`${e.price}x${e.qty} ${e.buyerOrderId}/${e.sellerOrderId}${e.isBuyerMaker ? ' m' : ''}`] : []));
}
