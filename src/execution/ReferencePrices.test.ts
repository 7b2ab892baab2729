import { describe, expect, it } from 'vitest';
import { Decimal } from '../core/decimal.js';
import type { ReferencePrice } from '../core/types.js';
import { makeSymbol } from '../risk/testkit.js';
import { silentLogger } from './log.js';
import { ReferencePrices, type ReferencePriceSource } from './ReferencePrices.js';

const D = (s: string): Decimal => new Decimal(s);
const usdt = makeSymbol('BTC_USDT', []);
const alch = makeSymbol('ALCH_IDR', [], { type: 3 });

/** A source with a settable price per symbol; counts requests. */
function source(prices: Map<string, string | null | Error>, asked: string[][] = []): ReferencePriceSource {
  return {
    executionRules: (p) => {
      asked.push(p.symbols);
      return Promise.resolve({ priceRange: [{ symbol: 'BTCUSDT', bidLimitMultUp: D('1.05'), bidLimitMultDown: D('0.95') }], other: [] });
    },
    referencePrice: (symbol): Promise<ReferencePrice> => {
      const v = prices.get(symbol);
      if (v instanceof Error) return Promise.reject(v);
      return Promise.resolve({ symbol, referencePrice: v === undefined || v === null ? null : D(v), timestamp: 0 });
    },
  };
}

describe('ReferencePrices', () => {
  it('asks only for type 1 symbols and maps the host spelling back to BASE_QUOTE', async () => {
    const asked: string[][] = [];
    const r = new ReferencePrices({ symbols: [usdt, alch], source: source(new Map([['BTC_USDT', '60000']]), asked), now: () => 0, log: silentLogger });
    await r.start();
    r.stop();
    expect(asked).toEqual([['BTC_USDT']]);
    expect(r.priceRanges).toEqual([{ symbol: 'BTC_USDT', bidLimitMultUp: D('1.05'), bidLimitMultDown: D('0.95') }]);
    expect(r.referencePrice('BTC_USDT')?.toFixed()).toBe('60000');
  });

  it('treats a price older than maxAgeMs as unknown (logged once) until a refresh succeeds', async () => {
    let now = 0;
    const prices = new Map<string, string | null | Error>([['BTC_USDT', '60000']]);
    const warned: string[] = [];
    const r = new ReferencePrices({ symbols: [usdt], source: source(prices), now: () => now, log: { ...silentLogger, warn: (_o: object, m?: string) => warned.push(m ?? '') }, maxAgeMs: 1000 });
    await r.start();
    r.stop();
    now = 1000;
    const first = r.referencePrice('BTC_USDT');
    expect(first?.toFixed()).toBe('60000');
    prices.set('BTC_USDT', new Error('HTTP 500'));
    await r.refresh();
    now = 1001;
    expect(r.referencePrice('BTC_USDT')).toBeUndefined();
    expect(r.referencePrice('BTC_USDT')).toBeUndefined();
    expect(warned.filter((m) => m.includes('stale'))).toHaveLength(1);
    prices.set('BTC_USDT', '60000');
    await r.refresh();
    // Same value: the same object (the risk checker caches bounds per reference price object).
    expect(r.referencePrice('BTC_USDT')).toBe(first);
  });

  it('passes null through (no reference price set: nothing to check) and reports changes', async () => {
    const prices = new Map<string, string | null | Error>([['BTC_USDT', null]]);
    const seen: (string | null)[] = [];
    const r = new ReferencePrices({ symbols: [usdt], source: source(prices), now: () => 0, log: silentLogger, onPrice: (_s, p) => seen.push(p?.toFixed() ?? null) });
    await r.start();
    r.stop();
    expect(r.referencePrice('BTC_USDT')).toBeNull();
    prices.set('BTC_USDT', '61000');
    await r.refresh();
    expect(r.referencePrice('BTC_USDT')?.toFixed()).toBe('61000');
    expect(seen).toEqual([null, '61000']);
  });

  it('goes on without local PRICE_RANGE checks when the rules cannot be fetched', async () => {
    const warned: string[] = [];
    const r = new ReferencePrices({
      symbols: [usdt],
      source: { executionRules: () => Promise.reject(new Error('HTTP 503')), referencePrice: () => Promise.reject(new Error('not asked')) },
      now: () => 0,
      log: { ...silentLogger, warn: (_o: object, m?: string) => warned.push(m ?? '') },
    });
    await r.start();
    r.stop();
    expect(r.priceRanges).toEqual([]);
    expect(r.referencePrice('BTC_USDT')).toBeUndefined();
    expect(warned[0]).toMatch(/execution rules/);
  });
});
