/**
 * A ready-made sandbox configuration for tests (this project's and other parts' integration
 * tests): three symbols (BTC_USDT and BTC_IDR of type 1, DOGE_IDR of type 2, ALCH_IDR of
 * type 3), three accounts, no market activity unless asked, and a clock tests can move.
 * The keys are test credentials for a local sandbox only.
 */
import type { Clock } from '../core/index.js';
import { resolveSandboxConfig, type SandboxConfig, type SandboxConfigInput } from './config.js';

/** A clock that only moves when told to. */
export class ManualClock implements Clock {
  constructor(public t = Date.UTC(2026, 0, 5, 12, 0, 0)) {}
  /** Current time. */
  now(): number {
    return this.t;
  }
  /** Moves time forward by `ms`. */
  advance(ms: number): void {
    this.t += ms;
  }
}

/**
 * Filters of a test symbol: the given tick, step and minimum notional, wide maxima, and room for
 * `maxNumOrders` open orders per account.
 */
export function testFilters(tick: string, step: string, minNotional: string, maxNumOrders = 50): SandboxConfigInput['symbols'][number]['filters'] {
  return [
    { filterType: 'PRICE_FILTER', minPrice: tick, maxPrice: '100000000000', tickSize: tick },
    { filterType: 'LOT_SIZE', minQty: step, maxQty: '100000', stepSize: step },
    { filterType: 'NOTIONAL', minNotional, maxNotional: '100000000000', applyToMarket: true, avgPriceMins: 0 },
    { filterType: 'MAX_NUM_ORDERS', limit: maxNumOrders },
  ];
}

/** Test accounts: alice and bob trade; carol's key is restricted to API_KEY endpoints. */
export const TEST_ACCOUNTS = {
  alice: { id: 'alice', apiKey: 'testAliceKey-0123456789abcdef0123456789abcdef', secret: 'testAliceSecret-0123456789abcdef0123456789' },
  bob: { id: 'bob', apiKey: 'testBobKey-0123456789abcdef0123456789abcdef00', secret: 'testBobSecret-0123456789abcdef0123456789ab' },
  carol: { id: 'carol', apiKey: 'testCarolKey-0123456789abcdef0123456789abcdef', secret: 'testCarolSecret-0123456789abcdef0123456789' },
} as const;

/** The test configuration as a YAML-shaped document (change it before resolving if needed). */
export function testSandboxDocument(): SandboxConfigInput {
  return {
    symbols: [
      { symbol: 'BTC_USDT', type: 1, filters: testFilters('0.01', '0.00001', '5'), lastPrice: '60000', referencePrice: '60000', priceRange: { bidLimitMultUp: '1.05', bidLimitMultDown: '0.95', askLimitMultUp: '1.05', askLimitMultDown: '0.95' } },
      { symbol: 'BTC_IDR', type: 1, quotePrecision: 2, filters: testFilters('1', '0.00001', '20000'), lastPrice: '1000000000' },
      { symbol: 'DOGE_IDR', type: 2, filters: testFilters('1', '1', '10000'), lastPrice: '2000' },
      { symbol: 'ALCH_IDR', type: 3, filters: testFilters('1', '0.01', '10000'), lastPrice: '530' },
    ],
    accounts: [
      { ...TEST_ACCOUNTS.alice, tradeGroupId: 'g1', balances: { BTC: '10', USDT: '1000000', IDR: '100000000000', ALCH: '100000', DOGE: '100000' } },
      { ...TEST_ACCOUNTS.bob, tradeGroupId: 'g1', balances: { BTC: '10', USDT: '1000000', IDR: '100000000000', ALCH: '100000', DOGE: '100000' } },
      { ...TEST_ACCOUNTS.carol, permissions: ['API_KEY'], balances: { USDT: '1000' } },
    ],
    market: [],
  };
}

/** Resolves the test document, applying `patch` to it first. */
export function testSandboxConfig(patch?: (doc: SandboxConfigInput) => void): SandboxConfig {
  const doc = testSandboxDocument();
  patch?.(doc);
  return resolveSandboxConfig(doc, 'test-config', process.cwd());
}
