/**
 * The sandbox replaying the bundled real BTCUSDT recording (backtest-data/, no ../shared needed):
 * a client following the spec's book procedure on the diff stream ends with exactly the
 * sandbox's book, the book never crosses, and replayed trades reach the trade stream in
 * recording order with recorded prices.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { Decimal } from '../../src/core/index.js';
import { type RunningSandbox, startSandbox } from '../../src/sandbox/index.js';
import { loadRecording } from '../../src/sandbox/recording.js';
import { testSandboxConfig } from '../../src/sandbox/test-config.js';

const sample = path.resolve(import.meta.dirname, '../../backtest-data/btcusdt-sample.ndjson.gz');
let sbx: RunningSandbox;

beforeAll(async () => {
  sbx = await startSandbox(
    testSandboxConfig((d) => {
      d.market = [{ symbol: 'BTC_USDT', replay: { file: sample, sourceSymbol: 'BTCUSDT', loop: false, speed: 20 } }];
    }),
  );
});
afterAll(async () => {
  await sbx.stop();
});

describe('replay of the bundled recording', () => {
  it('snapshot + diff stream by the spec procedure equals the sandbox book; never crossed; trades in recording order', async () => {
    const ws = new WebSocket(`${sbx.urls.stream_url}/stream?streams=btcusdt@depth@100ms/btcusdt@trade`);
    const diffs: { U: number; u: number; b: string[][]; a: string[][] }[] = [];
    const trades: { p: string; q: string }[] = [];
    ws.on('message', (raw) => {
      const m = JSON.parse(raw.toString()) as { stream: string; data: never };
      if (m.stream.endsWith('@trade')) trades.push(m.data);
      else diffs.push(m.data);
    });
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    try {
      const waitFor = async (cond: () => boolean): Promise<void> => {
        const deadline = Date.now() + 10_000;
        while (!cond()) {
          if (Date.now() > deadline) throw new Error('timed out waiting for stream data');
          await new Promise((r) => setTimeout(r, 20));
        }
      };
      await waitFor(() => diffs.length > 0);
      const snap = (await (await fetch(`${sbx.urls.market_url}/api/v3/depth?symbol=BTCUSDT&limit=5000`)).json()) as { lastUpdateId: number; bids: string[][]; asks: string[][] };
      // Diffs after the snapshot, not since connecting: on a loaded machine the snapshot can come late.
      await waitFor(() => diffs.filter((d) => d.u > snap.lastUpdateId).length > 10 && trades.length > 20);
      for (const f of sbx.feeds) f.stop();
      const target = sbx.engine.depth('BTC_USDT', 5000).lastUpdateId;
      await waitFor(() => (diffs.at(-1)?.u ?? 0) >= target);

      const bids = new Map(snap.bids.map(([p, q]) => [p as string, q as string]));
      const asks = new Map(snap.asks.map(([p, q]) => [p as string, q as string]));
      let prev: number | undefined;
      let applied = 0;
      for (const d of diffs) {
        if (d.u <= snap.lastUpdateId) continue;
        if (prev === undefined) expect(d.U <= snap.lastUpdateId + 1 && d.u >= snap.lastUpdateId + 1).toBe(true);
        else expect(d.U).toBe(prev + 1);
        prev = d.u;
        for (const [side, levels] of [
          [bids, d.b],
          [asks, d.a],
        ] as const) {
          for (const [p, q] of levels) {
            if (new Decimal(q as string).isZero()) side.delete(p as string);
            else side.set(p as string, q as string);
          }
        }
        const bestBid = Decimal.max(...[...bids.keys()].map((p) => new Decimal(p)));
        const bestAsk = Decimal.min(...[...asks.keys()].map((p) => new Decimal(p)));
        expect(bestBid.lt(bestAsk)).toBe(true);
        applied++;
      }
      expect(applied).toBeGreaterThan(5);
      const book = sbx.engine.depth('BTC_USDT', 5000);
      const order = (m: Map<string, string>, desc: boolean): string[][] => [...m].sort((x, y) => (desc ? -1 : 1) * new Decimal(x[0]).cmp(y[0])).map(([p, q]) => [p, q]);
      expect(order(bids, true)).toEqual(book.bids.map((l) => [l.price.toFixed(), l.qty.toFixed()]));
      expect(order(asks, false)).toEqual(book.asks.map((l) => [l.price.toFixed(), l.qty.toFixed()]));

      const recorded = loadRecording(sample, 'BTCUSDT');
      const start = recorded.findIndex((e) => e.kind === 'snapshot');
      const recordedTrades = recorded.slice(start).flatMap((e) => (e.kind === 'trade' ? [[e.price.toFixed(), e.qty.toFixed()]] : []));
      // The feed started before the socket connected, so the stream shows a contiguous window of the recording.
      const got = JSON.stringify(trades.map((t) => [t.p, t.q]));
      const offsets = recordedTrades.map((_t, k) => k).filter((k) => JSON.stringify(recordedTrades.slice(k, k + trades.length)) === got);
      expect(offsets.length).toBeGreaterThan(0);
    } finally {
      ws.terminate();
    }
  });
});

describe('whole recording', () => {
  it('every message after the snapshot is applied; none refused; values finer than the step are floored and counted', async () => {
    const fast = await startSandbox(
      testSandboxConfig((d) => {
        d.market = [{ symbol: 'BTC_USDT', replay: { file: sample, sourceSymbol: 'BTCUSDT', loop: false, speed: 1000 } }];
      }),
    );
    try {
      const recorded = loadRecording(sample, 'BTCUSDT');
      const expected = recorded.length - recorded.findIndex((e) => e.kind === 'snapshot');
      const feed = fast.feeds[0];
      if (!feed) throw new Error('no feed');
      const deadline = Date.now() + 20_000;
      while (feed.applied + feed.failed < expected && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      expect([feed.applied, feed.failed, feed.lastError]).toEqual([expected, 0, undefined]);
      // The snapshot holds one level of 25.426189 BTC, finer than the 0.00001 step.
      expect(feed.adjusted).toBe(1);
      const book = fast.engine.depth('BTC_USDT', 1);
      expect(book.bids[0]?.price.lt(book.asks[0]?.price ?? 0)).toBe(true);
    } finally {
      await fast.stop();
    }
  });
});

describe("the replay's clock", () => {
  it('replayedTo is the recorded receive time of the message whose trade the engine reports, and of the last one at the end', async () => {
    const fast = await startSandbox(
      testSandboxConfig((d) => {
        d.market = [{ symbol: 'BTC_USDT', replay: { file: sample, sourceSymbol: 'BTCUSDT', loop: false, speed: 1000 } }];
      }),
    );
    try {
      const feed = fast.feeds[0];
      if (!feed) throw new Error('no feed');
      const seen: (number | undefined)[] = [];
      const off = fast.engine.subscribe((e) => {
        if (e.type === 'trade') seen.push(feed.replayedTo);
      });
      await fast.marketEnded;
      off();
      const recorded = loadRecording(sample, 'BTCUSDT');
      const fromSnapshot = recorded.slice(recorded.findIndex((e) => e.kind === 'snapshot'));
      expect(seen).toEqual(fromSnapshot.flatMap((e) => (e.kind === 'trade' ? [e.ms] : [])));
      expect(feed.replayedTo).toBe(recorded.at(-1)?.ms);
    } finally {
      await fast.stop();
    }
    const synthetic = await startSandbox(testSandboxConfig((d) => void (d.market = [{ symbol: 'BTC_IDR', synthetic: { seed: 7, midPrice: '1000000000', intervalMs: 50 } }])));
    try {
      expect(synthetic.feeds[0]?.replayedTo).toBeUndefined();
    } finally {
      await synthetic.stop();
    }
  });
});

describe('end of the market activity', () => {
  it('a replay played once announces its end after its last event; looped or synthetic activity never ends', async () => {
    const once = await startSandbox(
      testSandboxConfig((d) => {
        d.market = [{ symbol: 'BTC_USDT', replay: { file: sample, sourceSymbol: 'BTCUSDT', loop: false, speed: 1000 } }];
      }),
    );
    try {
      expect(once.marketEnded).toBeDefined();
      await once.marketEnded;
      const events = loadRecording(sample, 'BTCUSDT');
      const feed = once.feeds[0];
      // Everything from the snapshot on was applied (or refused and counted) before the end.
      expect((feed?.applied ?? 0) + (feed?.failed ?? 0)).toBe(events.length - events.findIndex((e) => e.kind === 'snapshot'));
    } finally {
      await once.stop();
    }
    const looped = await startSandbox(
      testSandboxConfig((d) => {
        d.market = [{ symbol: 'BTC_USDT', replay: { file: sample, sourceSymbol: 'BTCUSDT', loop: true, speed: 1000 } }];
      }),
    );
    // A replay played once beside a synthetic flow: the market goes on after the replay.
    const mixed = await startSandbox(
      testSandboxConfig((d) => {
        d.market = [
          { symbol: 'BTC_USDT', replay: { file: sample, sourceSymbol: 'BTCUSDT', loop: false, speed: 1000 } },
          { symbol: 'BTC_IDR', synthetic: { seed: 7, midPrice: '1000000000', intervalMs: 50 } },
        ];
      }),
    );
    const quiet = await startSandbox(testSandboxConfig(), { quiet: true });
    try {
      expect(looped.marketEnded).toBeUndefined();
      expect(mixed.feeds.map((f) => f.ended === undefined)).toEqual([false, true]);
      expect(mixed.marketEnded).toBeUndefined();
      expect(quiet.marketEnded).toBeUndefined();
    } finally {
      await Promise.all([looped.stop(), mixed.stop(), quiet.stop()]);
    }
  });
});
