/**
 * The market-data side of `kancil run` (RunMarket) over a real WebSocket: a dropped depth update
 * reaches the right book through the run's symbol mapping (stream `btcidr@…` -> book BTC_IDR) and
 * the bus, so the trading-state machine halts that symbol at once, not at the next diff.
 */
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { symbolInfoOf } from '../../src/backtest/Backtest.js';
import { Bus } from '../../src/bus/Bus.js';
import type { BusEvent } from '../../src/bus/events.js';
import { Decimal } from '../../src/core/decimal.js';
import type { OrderBookSnapshot } from '../../src/core/types.js';
import { RunMarket } from '../../src/cli/runMarket.js';
import { FakeStreamServer, waitFor } from '../support-stream/fake-stream-server.js';

const lv = (p: string, q: string): { price: Decimal; qty: Decimal } => ({ price: new Decimal(p), qty: new Decimal(q) });

describe('RunMarket: a dropped depth update', () => {
  let server: FakeStreamServer;
  let market: RunMarket;
  let events: BusEvent[];
  const snapshots = new Map<string, OrderBookSnapshot>();

  beforeEach(async () => {
    server = await FakeStreamServer.start();
    const bus = new Bus();
    events = [];
    bus.listen((e) => events.push(e));
    snapshots.set('BTC_IDR', { lastUpdateId: 10, bids: [lv('100', '1')], asks: [lv('101', '1')] });
    snapshots.set('ETH_IDR', { lastUpdateId: 50, bids: [lv('20', '1')], asks: [lv('21', '1')] });
    market = new RunMarket({
      bus,
      hosts: { stream_url: server.url },
      symbols: [symbolInfoOf('BTC_IDR', []), symbolInfoOf('ETH_IDR', [])],
      snapshots: { depth: async (r) => snapshots.get(r.symbol) as OrderBookSnapshot },
      log: pino({ level: 'silent' }),
      now: () => Date.now(),
    });
    market.start();
    await waitFor(() => server.open().length === 1 && (server.open()[0]?.streams.size ?? 0) === 4, 5000, 'subscribed');
    server.publish('btcidr@depth@100ms', { e: 'depthUpdate', E: 11, s: 'BTCIDR', U: 11, u: 11, b: [], a: [] });
    server.publish('ethidr@depth@100ms', { e: 'depthUpdate', E: 51, s: 'ETHIDR', U: 51, u: 51, b: [], a: [] });
    await market.whenReady(5000);
  });
  afterEach(async () => {
    await market.close();
    await server.stop();
  });

  const notReady = (symbol: string): boolean => events.some((e) => e.type === 'bookStatus' && e.symbol === symbol && !e.ready && /^dropped depth update/.test(e.reason));

  it("halts only that symbol's book at once and brings it back from a fresh snapshot", async () => {
    snapshots.set('BTC_IDR', { lastUpdateId: 12, bids: [lv('100', '4')], asks: [lv('101', '1')] });
    server.publish('btcidr@depth@100ms', { e: 'depthUpdate', E: 12, s: 'BTCIDR', U: 12, u: 12, b: [['100', '4.0.0']], a: [] });
    await waitFor(() => notReady('BTC_IDR'), 5000, 'BTC_IDR not ready on the bus');
    await waitFor(() => market.book('BTC_IDR')?.ready === true, 5000, 'BTC_IDR ready again');
    expect(market.book('BTC_IDR')?.bestBid()?.qty.toFixed()).toBe('4');
    expect(notReady('ETH_IDR')).toBe(false);
    expect(market.book('ETH_IDR')?.ready).toBe(true);
  });

  it('a frame that names no stream (not JSON, no envelope) resyncs every depth book of the connection', async () => {
    server.sendRaw('\u0000garbage');
    await waitFor(() => notReady('BTC_IDR') && notReady('ETH_IDR'), 5000, 'both not ready');
    await market.whenReady(5000);
  });
});

describe('RunMarket: the kline streams its strategies read', () => {
  it('subscribes each one with the depth and trades of its symbol and puts its bars on the bus under the run\'s symbol', async () => {
    const server = await FakeStreamServer.start();
    const bus = new Bus();
    const events: BusEvent[] = [];
    bus.listen((e) => events.push(e));
    const market = new RunMarket({
      bus,
      hosts: { stream_url: server.url },
      symbols: [symbolInfoOf('BTC_IDR', []), symbolInfoOf('ETH_IDR', [])],
      snapshots: { depth: async () => ({ lastUpdateId: 1, bids: [], asks: [] }) },
      log: pino({ level: 'silent' }),
      klines: [{ symbol: 'BTCIDR', interval: '1m' }],
      now: () => Date.now(),
    });
    try {
      market.start();
      await waitFor(() => (server.open()[0]?.streams.size ?? 0) === 5, 5000, 'subscribed');
      expect([...(server.open()[0]?.streams ?? [])].sort()).toEqual(['btcidr@depth@100ms', 'btcidr@kline_1m', 'btcidr@trade', 'ethidr@depth@100ms', 'ethidr@trade']);
      const k = { t: 60_000, T: 119_999, s: 'BTCIDR', i: '1m', f: 1, L: 2, o: '1', c: '2', h: '2', l: '1', v: '3', n: 2, x: true, q: '5', V: '1', Q: '2', B: '0' };
      server.publish('btcidr@kline_1m', { e: 'kline', E: 120_001, s: 'BTCIDR', k });
      await waitFor(() => events.some((e) => e.type === 'kline'), 5000, 'kline on the bus');
      expect(events.find((e) => e.type === 'kline')).toMatchObject({ symbol: 'BTC_IDR', interval: '1m', openTime: 60_000, closed: true });
    } finally {
      await market.close();
      await server.stop();
    }
  });
});
