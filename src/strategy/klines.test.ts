import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineStrategy } from './types.js';
import { klineSubscriptions } from './klines.js';

const plugin = defineStrategy({
  name: 'bars',
  description: 'reads bars',
  params: z.object({ interval: z.enum(['1m', '5m']).default('1m') }),
  klineIntervals: (p) => [p.interval, '1h'],
  create: () => ({ onEvent: () => undefined }),
});
const none = defineStrategy({ name: 'none', description: 'no bars', params: z.object({}), create: () => ({ onEvent: () => undefined }) });

describe('klineSubscriptions', () => {
  it('each symbol with each interval the plugin names for its parameters, once whatever the spelling', () => {
    expect(
      klineSubscriptions([
        { plugin, params: { interval: '5m' }, symbols: ['BTC_USDT', 'ETH_USDT'] },
        { plugin, params: {}, symbols: ['BTCUSDT'] },
        { plugin: none, params: {}, symbols: ['BTC_USDT'] },
        { plugin, params: { interval: '7m' }, symbols: ['DOGE_USDT'] },
      ]),
    ).toEqual([
      { symbol: 'BTC_USDT', interval: '5m' },
      { symbol: 'ETH_USDT', interval: '5m' },
      { symbol: 'BTC_USDT', interval: '1h' },
      { symbol: 'ETH_USDT', interval: '1h' },
      { symbol: 'BTCUSDT', interval: '1m' },
    ]);
  });
});
