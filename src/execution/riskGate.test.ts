import { describe, expect, it } from 'vitest';
import type { PlaceIntent } from '../bus/intents.js';
import { Decimal, ZERO } from '../core/decimal.js';
import { makeSymbol } from '../risk/testkit.js';
import { TradingStateMachine } from '../risk/tradingState.js';
import { riskGate, type RiskGateStrategy } from './riskGate.js';

const D = (s: string): Decimal => new Decimal(s);
const symbol = makeSymbol('BTC_IDR', [
  { filterType: 'PRICE_FILTER', minPrice: '1', maxPrice: '10000000000', tickSize: '1' },
  { filterType: 'LOT_SIZE', minQty: '0.00001', maxQty: '100', stepSize: '0.00001' },
]);

/** A strategy with a budget and `open` open orders. */
function strategy(name: string, open: number): RiskGateStrategy {
  const order = { symbol: 'BTC_IDR', side: 'BUY', quantity: D('0.001'), cumQty: ZERO };
  return { name, free: () => D('1000000000'), position: () => ZERO, openOrders: () => Array.from({ length: open }, () => order), placementsSince: () => 0 };
}

const place = (name: string, price: string): PlaceIntent => ({ kind: 'place', strategy: name, intentId: `${name}:1`, clientId: `${name}-1`, symbol: 'BTC_IDR', side: 'BUY', orderType: 'LIMIT', timeInForce: 'GTC', price: D(price), quantity: D('0.001') });

describe('riskGate', () => {
  const gate = riskGate({
    symbols: [symbol],
    config: { mode: 'reject', maxOpenOrders: 5 },
    states: new TradingStateMachine(),
    now: () => 1000,
    book: () => undefined,
    lastPrice: () => undefined,
    liveOrders: () => [],
    dailyPnl: () => ZERO,
    // strategies[i].risk: 'own' rounds instead of refusing and may hold one open order.
    strategyConfig: (name) => (name === 'own' ? { mode: 'adjust', maxOpenOrders: 1 } : undefined),
  });

  it('applies a strategy’s own limits over the run-wide ones, and the run-wide ones to the others', () => {
    expect(gate(place('own', '100'), strategy('own', 1))).toMatchObject({ kind: 'reject', reason: 'MAX_OPEN_ORDERS' });
    expect(gate(place('other', '100'), strategy('other', 1))).toEqual({ kind: 'accept' });
    expect(gate(place('other', '100'), strategy('other', 5))).toMatchObject({ kind: 'reject', reason: 'MAX_OPEN_ORDERS' });
  });

  it('uses a strategy’s own risk mode (adjust) while the run-wide mode stays reject', () => {
    const adjusted = gate(place('own', '100.4'), strategy('own', 0));
    expect(adjusted.kind).toBe('adjust');
    expect(adjusted.kind === 'adjust' && adjusted.intent.kind === 'place' && adjusted.intent.price?.toFixed()).toBe('100');
    expect(gate(place('other', '100.4'), strategy('other', 0)).kind).toBe('reject');
  });
});

describe('riskGate with a windowed average and a reference price', () => {
  const usdt = makeSymbol('BTC_USDT', [
    { filterType: 'PRICE_FILTER', minPrice: '0.01', maxPrice: '10000000', tickSize: '0.01' },
    { filterType: 'LOT_SIZE', minQty: '0.00001', maxQty: '100', stepSize: '0.00001' },
    { filterType: 'PERCENT_PRICE', multiplierUp: '1.1', multiplierDown: '0.9', avgPriceMins: 5 },
  ]);
  let ref: Decimal | null | undefined = D('60000');
  const mins: number[] = [];
  const gate = riskGate({
    symbols: [usdt],
    config: { mode: 'reject' },
    states: new TradingStateMachine(),
    now: () => 1000,
    book: () => undefined,
    // The last trade (65000) would let 68000 through; the 5-minute average (60005) does not.
    lastPrice: () => D('65000'),
    avgPrice: (_s, m) => {
      mins.push(m);
      return D('60005');
    },
    referencePrice: () => ref,
    priceRanges: [{ symbol: 'BTC_USDT', bidLimitMultUp: D('1.05'), bidLimitMultDown: D('0.95') }],
    liveOrders: () => [],
    dailyPnl: () => ZERO,
  });
  const buy = (price: string): PlaceIntent => ({ ...place('s', price), symbol: 'BTC_USDT' });

  it('checks PERCENT_PRICE against the average over the filter’s avgPriceMins, not the last trade', () => {
    expect(gate(buy('68000'), strategy('s', 0))).toMatchObject({ kind: 'reject', reason: 'PERCENT_PRICE' });
    expect(mins).toContain(5);
  });

  it('checks PRICE_RANGE against the reference price, and leaves it to the exchange when the price is unknown or null', () => {
    expect(gate(buy('63000.01'), strategy('s', 0))).toMatchObject({ kind: 'reject', reason: 'PRICE_RANGE' });
    expect(gate(buy('63000'), strategy('s', 0))).toEqual({ kind: 'accept' });
    ref = undefined;
    expect(gate(buy('63000.01'), strategy('s', 0))).toEqual({ kind: 'accept' });
    ref = null;
    expect(gate(buy('63000.01'), strategy('s', 0))).toEqual({ kind: 'accept' });
  });
});

describe('riskGate with exchange-wide filters', () => {
  // Orders of the whole account this run knows, across symbols and strategies.
  const live: { symbol: string; orderType: PlaceIntent['orderType'] }[] = [];
  const gate = riskGate({
    symbols: [symbol],
    config: { mode: 'reject' },
    states: new TradingStateMachine(),
    now: () => 1000,
    book: () => undefined,
    lastPrice: () => undefined,
    exchangeFilters: { maxNumOrders: 3, maxNumAlgoOrders: 1 },
    liveOrders: () => live,
    dailyPnl: () => ZERO,
  });
  const stop: PlaceIntent = { ...place('s', '100'), orderType: 'STOP_LOSS_LIMIT', stopPrice: D('101') };

  it('counts every live order of the account against EXCHANGE_MAX_NUM_ORDERS, whatever its symbol', () => {
    live.length = 0;
    live.push({ symbol: 'ETH_IDR', orderType: 'LIMIT' }, { symbol: 'BTC_IDR', orderType: 'LIMIT' });
    expect(gate(place('s', '100'), strategy('s', 0))).toEqual({ kind: 'accept' });
    live.push({ symbol: 'ETH_IDR', orderType: 'LIMIT' });
    expect(gate(place('s', '100'), strategy('s', 0))).toMatchObject({ kind: 'reject', reason: 'EXCHANGE_MAX_NUM_ORDERS' });
  });

  it('counts open algo orders against EXCHANGE_MAX_NUM_ALGO_ORDERS for algo intents only', () => {
    live.length = 0;
    live.push({ symbol: 'ETH_IDR', orderType: 'TAKE_PROFIT_LIMIT' });
    expect(gate(stop, strategy('s', 0))).toMatchObject({ kind: 'reject', reason: 'EXCHANGE_MAX_NUM_ALGO_ORDERS' });
    expect(gate(place('s', '100'), strategy('s', 0))).toEqual({ kind: 'accept' });
  });
});
