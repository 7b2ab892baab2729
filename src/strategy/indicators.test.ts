import { describe, expect, it } from 'vitest';
import { ATR, BollingerBands, EMA, RSI, SMA } from 'trading-signals';
import { Decimal } from '../core/decimal.js';
import type { KlineEvent, TradeEvent } from '../core/marketEvents.js';
import type { KlineIntervalName } from '../core/enums.js';
import { fromBars, fromCandles, fromTrades } from './indicators.js';

function kline(close: string, opts: { symbol?: string; interval?: KlineIntervalName; closed?: boolean; high?: string; low?: string; t?: number } = {}): KlineEvent {
  const t = opts.t ?? 0;
  const d = (x: string): Decimal => new Decimal(x);
  return {
    type: 'kline',
    E: t + 59_999,
    symbol: opts.symbol ?? 'BTC_USDT',
    interval: opts.interval ?? '1m',
    openTime: t,
    closeTime: t + 59_999,
    firstTradeId: undefined,
    lastTradeId: undefined,
    open: d(close),
    high: d(opts.high ?? close),
    low: d(opts.low ?? close),
    close: d(close),
    volume: d('1'),
    quoteVolume: d(close),
    trades: 1,
    takerBuyBaseVolume: d('0'),
    takerBuyQuoteVolume: d('0'),
    closed: opts.closed ?? true,
  };
}

function trade(price: string, symbol = 'BTC_USDT'): TradeEvent {
  return { type: 'trade', E: 1, symbol, tradeId: '1', price: new Decimal(price), qty: new Decimal('1'), tradeTime: 1, isBuyerMaker: false };
}

const closes = ['100', '101.5', '99.25', '102', '103.75', '101', '104.5', '105', '103.25', '106'];

describe('fromBars', () => {
  it('equals the trading-signals calculation fed the closes by hand, value by value', () => {
    const ours = fromBars(new RSI(3), { symbol: 'BTC_USDT', interval: '1m' });
    const ref = new RSI(3);
    for (const [i, c] of closes.entries()) {
      expect(ours.update(kline(c, { t: i * 60_000 }))).toBe(true);
      const want = ref.update(Number(c), false);
      expect(ours.value).toBe(want ?? undefined);
      expect(ours.isStable).toBe(ref.isStable);
    }
    expect(ours.count).toBe(closes.length);
    expect(ours.isStable).toBe(true);
  });

  it('reads only closed bars of its symbol and interval (any spelling of the symbol)', () => {
    const ours = fromBars(new SMA(2), { symbol: 'BTC_USDT', interval: '1m' });
    expect(ours.update(kline('50', { closed: false }))).toBe(false);
    expect(ours.update(kline('50', { interval: '5m' }))).toBe(false);
    expect(ours.update(kline('50', { symbol: 'ETH_USDT' }))).toBe(false);
    expect(ours.update(trade('50'))).toBe(false);
    expect(ours.update({ type: 'timer', E: 0 })).toBe(false);
    expect(ours.value).toBeUndefined();
    expect(ours.update(kline('10', { symbol: 'BTCUSDT' }))).toBe(true);
    expect(ours.isStable).toBe(false);
    expect(ours.update(kline('20'))).toBe(true);
    expect(ours.value).toBe(15);
    expect(ours.isStable).toBe(true);
  });

  it('reads the bar price asked for (hl2 is the high-low midpoint)', () => {
    const ours = fromBars(new SMA(1), { symbol: 'BTC_USDT', interval: '1m', price: 'hl2' });
    ours.update(kline('100', { high: '110', low: '90.5' }));
    expect(ours.value).toBe(100.25);
  });

  it('carries a structured result (Bollinger bands) typed as the calculation returns it', () => {
    const ours = fromBars(new BollingerBands(3, 2), { symbol: 'BTC_USDT', interval: '1m' });
    const ref = new BollingerBands(3, 2);
    for (const c of closes) {
      ours.update(kline(c));
      ref.update(Number(c), false);
    }
    expect(ours.value?.upper).toBe(ref.getResultOrThrow().upper);
    expect(ours.value?.lower).toBeLessThan(ours.value?.middle ?? 0);
  });
});

describe('fromCandles', () => {
  it('feeds high, low and close (ATR) as trading-signals computes them', () => {
    const ours = fromCandles(new ATR(3), { symbol: 'BTC_USDT', interval: '1m' });
    const ref = new ATR(3);
    for (const [i, c] of closes.entries()) {
      const high = String(Number(c) + 1 + (i % 3));
      const low = String(Number(c) - 2);
      ours.update(kline(c, { high, low }));
      expect(ours.value).toBe(ref.update({ high: Number(high), low: Number(low), close: Number(c) }, false) ?? undefined);
    }
    expect(ours.isStable).toBe(true);
  });
});

describe('fromTrades', () => {
  it('reads every trade of its symbol and nothing else', () => {
    const ours = fromTrades(new EMA(3), 'BTC_USDT');
    const ref = new EMA(3);
    for (const p of closes) {
      expect(ours.update(trade(p))).toBe(true);
      ref.update(Number(p), false);
    }
    expect(ours.update(trade('1', 'ETH_USDT'))).toBe(false);
    expect(ours.update(kline('1'))).toBe(false);
    expect(ours.value).toBe(ref.getResultOrThrow());
    expect(ours.count).toBe(closes.length);
  });
});
