/**
 * Trade ids past 2^53 keep every digit end to end: a public trade and an own fill sent as JSON
 * number literals over real WebSockets from loopback servers reach the bus exactly, the fill is
 * counted once, survives a restart in the ledger file, and the same fill read back from the REST
 * trades endpoint (reconciliation) is recognised as already recorded.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Bus } from '../../src/bus/Bus.js';
import type { BusEvent, FillEvent } from '../../src/bus/events.js';
import { VirtualClock } from '../../src/core/clock.js';
import { Decimal } from '../../src/core/decimal.js';
import { OpenClient } from '../../src/exchange/index.js';
import { ListenKeyUserStream } from '../../src/exchange/stream/listen-key-stream.js';
import { ListenTokenUserStream } from '../../src/exchange/stream/listen-token-stream.js';
import { StreamClient } from '../../src/exchange/stream/stream-client.js';
import { OrderTracker } from '../../src/execution/OrderTracker.js';
import { Ledger } from '../../src/store/Ledger.js';
import { FakeStreamServer, waitFor } from '../support-stream/fake-stream-server.js';
import { FakeUserServer } from '../support-stream/fake-user-server.js';
import { LoopbackServer } from '../support/LoopbackServer.js';
import { OPEN_KEY, OPEN_SECRET, signed } from '../support/openRoutes.js';

const silent = pino({ level: 'silent' });
const backoff = { initialMs: 10, maxMs: 40 };
const PUBLIC_ID = '9223372036854775807';
const FILL_ID = '9007199254740993';
const ORDER_ID = '9223372036854775000';

/** Wire text written by hand: JSON.stringify cannot write these ids as numbers, the exchange does. */
const tradeFrame = `{"stream":"btcidr@trade","data":{"e":"trade","E":1700000000000,"s":"BTCIDR","t":${PUBLIC_ID},"p":"1421496253.00","q":"0.00119000","b":${ORDER_ID},"a":9223372036854774999,"T":1700000000000,"m":true,"M":true}}`;
const reportText = (E: number): string =>
  `{"e":"executionReport","E":${E},"s":"BTC_IDR","c":"cid-1","S":"BUY","o":"LIMIT","f":"GTC","q":"0.00100000","p":"1421496253.00","P":"0.00","F":"0.00000000","g":-1,"C":"",` +
  `"x":"TRADE","X":"PARTIALLY_FILLED","r":"NONE","i":${ORDER_ID},"l":"0.00040000","z":"0.00040000","L":"1421496253.00","n":"0.00000040","N":"BTC","T":${E},"t":${FILL_ID},` +
  `"I":1,"w":false,"m":true,"M":true,"O":${E - 10},"Z":"568598.5012","Y":"568598.5012"}`;
/** An account trade at 1421496253; its quoteQty is price x qty, as the fill checks require. */
const restTrade = (tradeId: string, qty: string): string =>
  `{"tradeId":${tradeId},"orderId":${ORDER_ID},"symbol":"BTC_IDR","price":"1421496253.00","qty":"${qty}","quoteQty":"${new Decimal('1421496253').mul(qty).toFixed()}","commission":"0.00000040","commissionAsset":"BTC",` +
  `"isBuyer":1,"isMaker":1,"isBestMatch":1,"time":1700000000001}`;

/** Journals the order the reports are about, as sent and acknowledged with its 19-digit order id. */
function placed(tracker: OrderTracker): void {
  tracker.create({
    clientId: 'cid-1', strategy: 's1', intentId: 'i-1', symbol: 'BTC_IDR', side: 'BUY', orderType: 'LIMIT', timeInForce: 'GTC',
    price: new Decimal('1421496253'), quantity: new Decimal('0.001'), quoteOrderQty: undefined, stopPrice: undefined, icebergQty: undefined, stpMode: undefined, venue: 'open',
  });
  tracker.attachOrderId('cid-1', ORDER_ID, 'rest');
}

describe('trade ids past 2^53, end to end', () => {
  let market: FakeStreamServer;
  let user: FakeUserServer;
  let rest: LoopbackServer;
  let dir: string;
  let closers: (() => Promise<void> | void)[];

  beforeEach(async () => {
    market = await FakeStreamServer.start();
    user = await FakeUserServer.start();
    rest = await LoopbackServer.start();
    dir = mkdtempSync(join(tmpdir(), 'kancil-trade-ids-'));
    closers = [];
  });
  afterEach(async () => {
    for (const c of closers.reverse()) await c();
    await market.stop();
    await user.stop();
    await rest.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** A run's pieces over one ledger file: the bus, the tracker fed by the user stream, and what reached the bus. */
  function run(path: string): { bus: Bus; tracker: OrderTracker; ledger: Ledger; seen: BusEvent[] } {
    const ledger = Ledger.open(path);
    const bus = new Bus();
    const seen: BusEvent[] = [];
    bus.listen((e) => seen.push(e));
    const tracker = new OrderTracker({ ledger, clock: new VirtualClock(1_700_000_000_000), emit: (e) => bus.publish(e) });
    tracker.load();
    closers.push(() => ledger.close());
    return { bus, tracker, ledger, seen };
  }

  it('public trade and own fill reach the bus with every digit; one fill, kept across a restart, deduplicated against REST', async () => {
    const path = join(dir, 'ledger.db');
    const first = run(path);
    placed(first.tracker);

    const streams = new StreamClient({ url: market.url, streams: ['btcidr@trade'], logger: silent, backoff });
    closers.push(() => streams.close());
    first.bus.attach(streams.events$);
    streams.start();
    // The type 1 listen-key stream: the fallback kancil run uses when the WebSocket API is unavailable.
    const userStream = new ListenKeyUserStream({ url: user.url, symbolType: 1, api: user.keyApi, logger: silent, backoff, reorderWindowMs: 0 });
    closers.push(() => userStream.close());
    userStream.events$.subscribe((e) => {
      first.bus.publish(e);
      if (e.type === 'executionReport') first.tracker.applyExecutionReport(e);
    });
    userStream.start();
    await waitFor(() => streams.connected && userStream.connected, 5000, 'connect');

    market.sendRaw(tradeFrame);
    user.pushText(reportText(1_700_000_000_100));
    // The same report again (a renewal overlap, a replay): still one fill.
    user.pushText(reportText(1_700_000_000_100));
    user.pushText(reportText(1_700_000_000_101));
    await waitFor(() => first.seen.some((e) => e.type === 'trade') && first.seen.filter((e) => e.type === 'executionReport').length >= 2, 5000, 'events');

    const trade = first.seen.find((e) => e.type === 'trade');
    expect(trade).toMatchObject({ type: 'trade', tradeId: PUBLIC_ID, buyerOrderId: ORDER_ID, sellerOrderId: '9223372036854774999' });
    expect(streams.stats.malformed).toBe(0);
    expect(userStream.stats.malformed).toBe(0);
    const report = first.seen.find((e) => e.type === 'executionReport');
    expect(report).toMatchObject({ orderId: ORDER_ID, tradeId: FILL_ID });
    // A readable report needs no reconciliation (an unreadable one would request it every time).
    expect(first.seen.some((e) => e.type === 'reconcileNeeded')).toBe(false);
    const fills = first.seen.filter((e): e is FillEvent => e.type === 'fill');
    expect(fills.map((f) => [f.orderId, f.tradeId])).toEqual([[ORDER_ID, FILL_ID]]);
    expect(first.ledger.fills().map((f) => f.tradeId)).toEqual([FILL_ID]);

    // Restart: a new process over the same ledger file.
    await streams.close();
    await userStream.close();
    first.ledger.close();
    const second = run(path);
    expect(second.ledger.fills().map((f) => [f.orderId, f.tradeId, f.qty.toFixed()])).toEqual([[ORDER_ID, FILL_ID, '0.0004']]);

    // Reconciliation reads the account's trades over REST: the known fill is not counted again, a new one is.
    rest.on('GET', '/open/v1/orders/trades', signed(() => ({ text: `{"code":0,"msg":"Success","data":{"list":[${restTrade(FILL_ID, '0.00040000')},${restTrade(PUBLIC_ID, '0.00060000')}]}}` })));
    const client = new OpenClient({ baseUrl: rest.url, marketUrl: `${rest.url}/market`, depthUrl: `${rest.url}/depth`, apiKey: OPEN_KEY, apiSecret: OPEN_SECRET, timeoutMs: 2000 });
    closers.push(() => client.close());
    const restTrades = await client.accountTrades({ symbol: 'BTC_IDR', orderId: ORDER_ID, limit: 1000 });
    expect(restTrades.map((t) => t.tradeId)).toEqual([FILL_ID, PUBLIC_ID]);
    for (const t of restTrades) second.tracker.applyTrade(t);
    for (const t of restTrades) second.tracker.applyTrade(t);
    const newFills = second.seen.filter((e): e is FillEvent => e.type === 'fill');
    expect(newFills.map((f) => f.tradeId)).toEqual([PUBLIC_ID]);
    expect(second.ledger.fills().map((f) => [f.tradeId, f.source])).toEqual([
      [FILL_ID, 'stream'],
      [PUBLIC_ID, 'rest'],
    ]);
  });

  it('the WebSocket API (listen token) delivers the same report with every digit, counted once', async () => {
    const { tracker, ledger, seen, bus } = run(join(dir, 'token.db'));
    placed(tracker);
    const s = new ListenTokenUserStream({ url: `${user.url}/ws-api/v3`, api: user.tokenApi, logger: silent, backoff, reorderWindowMs: 0 });
    closers.push(() => s.close());
    s.events$.subscribe((e) => {
      bus.publish(e);
      if (e.type === 'executionReport') tracker.applyExecutionReport(e);
    });
    s.start();
    await waitFor(() => s.subscribed && user.subs.length === 1, 5000, 'subscribed');
    const sid = user.subs[0]?.id ?? -1;
    for (let i = 0; i < 2; i++) user.pushText(`{"subscriptionId":${sid},"event":${reportText(1_700_000_000_100)}}`);
    await waitFor(() => seen.some((e) => e.type === 'fill'), 5000, 'fill');
    expect(s.stats.malformed).toBe(0);
    expect(seen.filter((e) => e.type === 'executionReport').map((e) => (e.type === 'executionReport' ? e.tradeId : ''))).toEqual([FILL_ID]);
    expect(ledger.fills().map((f) => [f.orderId, f.tradeId])).toEqual([[ORDER_ID, FILL_ID]]);
  });
});
