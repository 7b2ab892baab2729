/** LiveOrderBook fed by a real StreamClient: sync, gap, reconnect and stale handling. */
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { BookStatusEvent } from '../../src/core/marketEvents.js';
import type { OrderBookSnapshot } from '../../src/core/types.js';
import { Decimal } from '../../src/core/decimal.js';
import { LiveOrderBook } from '../../src/exchange/book/live-book.js';
import { StreamClient } from '../../src/exchange/stream/stream-client.js';
import { FakeStreamServer, waitFor } from '../support-stream/fake-stream-server.js';

const silent = pino({ level: 'silent' });
const lv = (p: string, q: string): { price: Decimal; qty: Decimal } => ({ price: new Decimal(p), qty: new Decimal(q) });

describe('LiveOrderBook over a stream connection', () => {
  let server: FakeStreamServer;
  let client: StreamClient;
  let book: LiveOrderBook;
  let statuses: BookStatusEvent[];
  let snapshot: OrderBookSnapshot;
  let snapshotCalls: number;
  /** When set, snapshot requests wait for it, so a test can look at the book while it resyncs. */
  let gate: Promise<void> | undefined;

  beforeEach(async () => {
    server = await FakeStreamServer.start();
    statuses = [];
    snapshotCalls = 0;
    gate = undefined;
    client = new StreamClient({ url: server.url, streams: ['btcidr@depth@100ms', 'btcidr@trade'], logger: silent, backoff: { initialMs: 20, maxMs: 50 } });
    book = new LiveOrderBook({
      symbol: 'BTCIDR',
      restSymbol: 'BTC_IDR',
      symbolType: 1,
      logger: silent,
      staleAfterMs: 0,
      snapshots: {
        depth: async (req) => {
          expect(req).toEqual({ symbol: 'BTC_IDR', symbolType: 1, limit: 1000 });
          snapshotCalls++;
          await gate;
          return snapshot;
        },
      },
    });
    book.status$.subscribe((s) => statuses.push(s));
    book.attach(client);
    client.start();
    await waitFor(() => client.connected, 5000, 'connect');
  });
  afterEach(async () => {
    book.close();
    await client.close();
    await server.stop();
  });

  const diff = (U: number, u: number, b: string[][] = [], a: string[][] = []): void => {
    server.publish('btcidr@depth@100ms', { e: 'depthUpdate', E: u, s: 'BTCIDR', U, u, b, a });
  };

  it('synchronises, then on a sequence gap goes not-ready with an event and resyncs by itself', async () => {
    snapshot = { lastUpdateId: 10, bids: [lv('100', '1')], asks: [lv('101', '2')] };
    diff(9, 11, [['100', '1.5']]);
    await waitFor(() => book.ready, 5000, 'ready');
    expect(book.bestBid()?.qty.toFixed()).toBe('1.5');
    diff(12, 12, [], [['101', '0'], ['102', '3']]);
    await waitFor(() => book.lastUpdateId === 12, 5000, 'u=12');
    expect(book.bestAsk()?.price.toFixed()).toBe('102');
    // Sequence gap: U=20 after u=12.
    snapshot = { lastUpdateId: 25, bids: [lv('99', '4')], asks: [lv('103', '1')] };
    let open = (): void => undefined;
    gate = new Promise<void>((r) => (open = r));
    diff(20, 22, [['98', '1']]);
    await waitFor(() => statuses.length === 2, 5000, 'not-ready');
    expect(statuses[1]).toMatchObject({ ready: false, reason: expect.stringContaining('gap') });
    expect(book.ready).toBe(false);
    expect(book.bestBid()).toBeUndefined();
    diff(23, 26, [['99', '5']]);
    open();
    await waitFor(() => book.ready, 5000, 'ready again');
    expect(book.bestBid()?.qty.toFixed()).toBe('5');
    expect(snapshotCalls).toBeGreaterThanOrEqual(2);
  });

  it('a dropped connection makes the book not ready until a fresh sync after reconnect', async () => {
    snapshot = { lastUpdateId: 10, bids: [lv('100', '1')], asks: [lv('101', '2')] };
    diff(11, 11);
    await waitFor(() => book.ready, 5000, 'ready');
    server.dropAll();
    await waitFor(() => !book.ready, 5000, 'not ready');
    expect(statuses.at(-1)?.reason).toMatch(/connection down/);
    await waitFor(() => client.connected && server.open().length === 1, 5000, 'reconnected');
    snapshot = { lastUpdateId: 40, bids: [lv('100', '7')], asks: [lv('101', '2')] };
    diff(41, 41);
    await waitFor(() => book.ready, 5000, 'ready after reconnect');
    expect(book.bestBid()?.qty.toFixed()).toBe('7');
  });

  it('a silent diff stream marks the book stale (not ready) and resyncs when diffs return', async () => {
    book.close();
    statuses = [];
    book = new LiveOrderBook({ symbol: 'BTCIDR', restSymbol: 'BTC_IDR', symbolType: 1, logger: silent, staleAfterMs: 60, snapshots: { depth: async () => snapshot } });
    book.status$.subscribe((s) => statuses.push(s));
    book.attach(client);
    snapshot = { lastUpdateId: 10, bids: [lv('100', '1')], asks: [lv('101', '2')] };
    diff(11, 11);
    await waitFor(() => book.ready, 5000, 'ready');
    // Quiet stream: not ready, then resynchronised from a fresh snapshot without waiting for a diff.
    snapshot = { lastUpdateId: 12, bids: [lv('100', '3')], asks: [lv('101', '2')] };
    await waitFor(() => statuses.some((s) => !s.ready && /stale/.test(s.reason)), 5000, 'stale');
    await waitFor(() => book.ready && book.bestBid()?.qty.toFixed() === '3', 5000, 'resynchronised from REST');
    diff(13, 13, [['100', '4']]);
    await waitFor(() => book.bestBid()?.qty.toFixed() === '4', 5000, 'next diff bridges');
  });

  const trade = (t: number, T: number): void => {
    server.publish('btcidr@trade', { e: 'trade', E: T, s: 'BTCIDR', t, p: '100', q: '1', T, m: true });
  };

  /** A fresh book whose trade-without-depth guard waits `staleTradeMs`; ready on a snapshot at 10 and a diff at 11. */
  const tradeWatchedBook = async (staleTradeMs: number): Promise<void> => {
    book.close();
    statuses = [];
    book = new LiveOrderBook({ symbol: 'BTCIDR', restSymbol: 'BTC_IDR', symbolType: 1, logger: silent, staleAfterMs: 0, staleTradeMs, snapshots: { depth: async () => (snapshotCalls++, snapshot) } });
    book.status$.subscribe((st) => statuses.push(st));
    book.attach(client);
    snapshot = { lastUpdateId: 10, bids: [lv('100', '1')], asks: [lv('101', '2')] };
    diff(11, 11);
    await waitFor(() => book.ready, 5000, 'ready');
  };

  it('trades with no depth update after them make the book not ready (depth subscription dead, connection alive); diffs bring it back', async () => {
    await tradeWatchedBook(100);
    const calls = snapshotCalls;
    // Trades at exchange time 20 and 21; the last diff was at 11 and none follows.
    trade(1, 20);
    trade(2, 21);
    await waitFor(() => !book.ready, 5000, 'not ready');
    expect(statuses.at(-1)).toMatchObject({ ready: false, reason: 'stale: a trade at 20 and no depth update at or after it for 100 ms' });
    expect(book.bestBid()).toBeUndefined();
    // No snapshot while the depth stream is quiet: it would be as stale as the book a moment later.
    expect(snapshotCalls).toBe(calls);
    snapshot = { lastUpdateId: 30, bids: [lv('100', '5')], asks: [lv('101', '2')] };
    diff(31, 31, [['100', '6']]);
    await waitFor(() => book.ready && book.lastUpdateId === 31, 5000, 'ready again from the next diff and a snapshot');
    expect(book.bestBid()?.qty.toFixed()).toBe('6');
  });

  it('a trade followed by its depth update leaves the book ready', async () => {
    await tradeWatchedBook(150);
    trade(1, 20);
    diff(12, 20, [['100', '0.5']]);
    trade(2, 18); // older than the last diff: already reflected
    await waitFor(() => book.lastUpdateId === 20, 5000, 'diff applied');
    // Past the guard's wait: nothing fired.
    await new Promise((r) => setTimeout(r, 400));
    expect([book.ready, statuses.map((st) => st.ready)]).toEqual([true, [true]]);
  });

  // A dropped diff must not leave the book readable until the next diff shows the gap: in a quiet
  // market that is minutes of strategies and the risk gate reading a book that missed a change.
  const badDiffs: [string, () => void][] = [
    ['unparseable JSON', () => server.sendRaw('{"stream":"btcidr@depth@100ms","data":{"e":"depthUpdate","E":12,"s":"BTCIDR","U":12,"u":12,"b":[["100",')],
    ['a field of the wrong type', () => server.publish('btcidr@depth@100ms', { e: 'depthUpdate', E: 12, s: 'BTCIDR', U: 12, u: 12, b: { price: '100' }, a: [] })],
    ['an unparseable price', () => server.publish('btcidr@depth@100ms', { e: 'depthUpdate', E: 12, s: 'BTCIDR', U: 12, u: 12, b: [['1O0', '2']], a: [] })],
  ];
  for (const [what, sendBad] of badDiffs) {
    it(`a diff with ${what} makes the book not ready at once; it comes back from a resync with the right levels`, async () => {
      snapshot = { lastUpdateId: 10, bids: [lv('100', '1')], asks: [lv('101', '2')] };
      diff(11, 11);
      await waitFor(() => book.ready, 5000, 'ready');
      const calls = snapshotCalls;
      let open = (): void => undefined;
      gate = new Promise<void>((r) => (open = r));
      sendBad();
      // No diff follows: only the dropped payload itself can have made the book not ready.
      await waitFor(() => !book.ready, 5000, 'not ready after the bad diff');
      expect(client.stats.malformed).toBe(1);
      expect(statuses.at(-1)).toMatchObject({ ready: false, reason: expect.stringMatching(/^dropped depth update/) });
      expect(book.bestBid()).toBeUndefined();
      await waitFor(() => snapshotCalls === calls + 1, 5000, 'resync asked for a snapshot');
      snapshot = { lastUpdateId: 12, bids: [lv('100', '2'), lv('99', '1')], asks: [lv('101', '2')] };
      open();
      await waitFor(() => book.ready, 5000, 'ready again');
      expect(book.top(5).bids.map((l) => `${l.price.toFixed()}@${l.qty.toFixed()}`)).toEqual(['100@2', '99@1']);
      diff(13, 13, [], [['101', '1']]);
      await waitFor(() => book.lastUpdateId === 13, 5000, 'next diff bridges');
      expect(book.bestAsk()?.qty.toFixed()).toBe('1');
    });
  }

  it('a malformed payload of another stream leaves the book alone', async () => {
    snapshot = { lastUpdateId: 10, bids: [lv('100', '1')], asks: [lv('101', '2')] };
    diff(11, 11);
    await waitFor(() => book.ready, 5000, 'ready');
    server.publish('btcidr@trade', { e: 'trade', E: 1, s: 'BTCIDR', t: 'x', p: '100', q: '1', T: 1, m: true });
    diff(12, 12, [['100', '3']]);
    await waitFor(() => book.lastUpdateId === 12, 5000, 'next diff');
    expect(client.stats.malformed).toBe(1);
    expect([book.ready, book.bestBid()?.qty.toFixed(), statuses.map((s) => s.ready)]).toEqual([true, '3', [true]]);
  });

  it('after a dropped diff whose update id is readable, a snapshot older than it is refused and fetched again', async () => {
    book.close();
    statuses = [];
    const answers: OrderBookSnapshot[] = [
      { lastUpdateId: 10, bids: [lv('100', '1')], asks: [lv('101', '2')] },
      // The REST answer lags the stream: it does not contain the dropped u=12 yet.
      { lastUpdateId: 11, bids: [lv('100', '1')], asks: [lv('101', '2')] },
      { lastUpdateId: 12, bids: [lv('100', '6')], asks: [lv('101', '2')] },
    ];
    let calls = 0;
    book = new LiveOrderBook({
      symbol: 'BTCIDR', restSymbol: 'BTC_IDR', symbolType: 1, logger: silent, staleAfterMs: 0,
      snapshots: { depth: async () => answers[Math.min(calls++, answers.length - 1)] as OrderBookSnapshot },
    });
    book.status$.subscribe((s) => statuses.push(s));
    book.attach(client);
    diff(11, 11);
    await waitFor(() => book.ready, 5000, 'ready');
    server.publish('btcidr@depth@100ms', { e: 'depthUpdate', E: 12, s: 'BTCIDR', U: 12, u: 12, b: [['100', 'six']], a: [] });
    await waitFor(() => !book.ready, 5000, 'not ready');
    await waitFor(() => book.ready, 5000, 'ready again');
    expect(calls).toBe(3);
    expect(book.sync.stats.snapshotsRejected).toBe(1);
    expect([book.lastUpdateId, book.bestBid()?.qty.toFixed()]).toEqual([12, '6']);
  });
});
