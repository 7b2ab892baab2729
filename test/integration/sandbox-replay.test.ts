/**
 * The sandbox replaying the bundled real BTCUSDT recording (backtest-data/, no ../shared needed):
 * a client following the spec's book procedure on the diff stream ends with exactly the
 * sandbox's book, the book never crosses, and replayed trades reach the trade stream in
 * recording order with recorded prices; klines are the recording's bars on its own clock.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { BarBuilder, type Bar, Decimal } from '../../src/core/index.js';
import { type RunningSandbox, startSandbox } from '../../src/sandbox/index.js';
import { SandboxFailures } from '../../src/sandbox/failures.js';
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

/** A sandbox replaying the sample once at 1000x. */
function fastReplay(options: { holdMarket?: boolean } = {}): Promise<RunningSandbox> {
  return startSandbox(
    testSandboxConfig((d) => {
      d.market = [{ symbol: 'BTC_USDT', replay: { file: sample, sourceSymbol: 'BTCUSDT', loop: false, speed: 1000 } }];
    }),
    options,
  );
}

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
    const fast = await fastReplay();
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
    const fast = await fastReplay();
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

describe('a recording cut short', () => {
  it('is a sandbox failure naming the file and the line reached, not a market that just goes still', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'kancil-cut-'));
    const cut = path.join(dir, 'cut.ndjson.gz');
    writeFileSync(cut, readFileSync(sample).subarray(0, 20_000));
    const lines: string[] = [];
    const sbx = await startSandbox(
      testSandboxConfig((d) => {
        d.market = [{ symbol: 'BTC_USDT', replay: { file: cut, sourceSymbol: 'BTCUSDT', loop: false, speed: 1000 } }];
      }),
    );
    // What `kancil sandbox` prints on stderr (once).
    const failures = new SandboxFailures((line) => lines.push(line));
    sbx.failures.failed.then((f) => failures.report(f.where, f.error, 'unreadable recording'), () => undefined);
    try {
      await sbx.marketEnded;
      expect(sbx.failures.first?.where).toBe('the replay of BTC_USDT');
      expect(sbx.failures.first?.error.message).toMatch(/cut\.ndjson\.gz: line \d+: the gzip data is cut short or corrupt/);
      await Promise.resolve();
      expect(lines).toEqual([expect.stringMatching(/^kancil sandbox: unreadable recording in the replay of BTC_USDT: .*cut\.ndjson\.gz: line \d+/)]);
    } finally {
      await sbx.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("klines on the recording's clock", () => {
  it('REST klines after a fast replay are the bars core/bars.ts builds from the recorded trades: recording minutes, whole ones only', async () => {
    const fast = await fastReplay();
    try {
      await fast.feeds[0]?.ended;
      const recorded = loadRecording(sample, 'BTCUSDT');
      const bars = new BarBuilder('1m', true);
      const closed: Bar[] = [];
      for (const e of recorded.slice(recorded.findIndex((x) => x.kind === 'snapshot'))) {
        if (e.kind === 'trade') closed.push(...bars.add({ price: e.price, qty: e.qty, isBuyerMaker: e.isBuyerMaker, time: e.T }));
      }
      const want = [...closed, bars.current].map((b) => b && [b.openTime, b.open.toFixed(), b.high.toFixed(), b.low.toFixed(), b.close.toFixed(), b.volume.toFixed(), b.trades]);
      const got = fast.state.market.klines('BTC_USDT', '1m', { limit: 100 }).map((k) => [k.t, k.o, k.h, k.l, k.c, k.v, k.n]);
      expect(got).toEqual(want);
      // The bundled two minutes hold one whole recording minute (closed) and the open one after it.
      expect(got.map((k) => new Date(k[0] as number).toISOString())).toEqual(['2024-08-08T23:55:00.000Z', '2024-08-08T23:56:00.000Z']);
      expect(fast.state.market.closedKlines('BTC_USDT', '1m', undefined).map((k) => k.t)).toEqual([Date.UTC(2024, 7, 8, 23, 55)]);
    } finally {
      await fast.stop();
    }
  });

  it('the kline stream pushes the bars that closed since its subscription, also those a fast replay closed before the first push', async () => {
    const fast = await fastReplay({ holdMarket: true });
    const ws = new WebSocket(`${fast.urls.stream_url}/ws/btcusdt@kline_1m`);
    try {
      const closed: { t: number; c: string; n: number }[] = [];
      const gotOne = new Promise<void>((resolve) => {
        ws.on('message', (m) => {
          const k = (JSON.parse(String(m)) as { k: { t: number; c: string; n: number; x: boolean } }).k;
          if (!k.x) return;
          closed.push({ t: k.t, c: k.c, n: k.n });
          resolve();
        });
      });
      await new Promise((r) => ws.once('open', r));
      fast.startMarket();
      await fast.marketEnded;
      await gotOne;
      expect(closed).toEqual(fast.state.market.closedKlines('BTC_USDT', '1m', undefined).map((k) => ({ t: k.t, c: k.c, n: k.n })));
      expect(closed.map((k) => k.t)).toEqual([Date.UTC(2024, 7, 8, 23, 55)]);
    } finally {
      ws.terminate();
      await fast.stop();
    }
  });

  it('at speed 1 the forming bar is there from the first trade: REST lists it, the kline stream pushes it (x=false)', async () => {
    // The sample's first trade is at 23:54:15 of the recording: its first whole minute is 45 s away.
    const slow = await startSandbox(
      testSandboxConfig((d) => {
        d.market = [{ symbol: 'BTC_USDT', replay: { file: sample, sourceSymbol: 'BTCUSDT', loop: false, speed: 1 } }];
      }),
      { holdMarket: true },
    );
    const ws = new WebSocket(`${slow.urls.stream_url}/ws/btcusdt@kline_1m`);
    try {
      const pushed = new Promise<{ t: number; x: boolean; n: number }>((resolve) => ws.once('message', (m) => resolve((JSON.parse(String(m)) as { k: { t: number; x: boolean; n: number } }).k)));
      await new Promise((r) => ws.once('open', r));
      slow.startMarket();
      const k = await pushed;
      const lead = Date.UTC(2024, 7, 8, 23, 54);
      expect(k).toMatchObject({ t: lead, x: false });
      expect(k.n).toBeGreaterThan(0);
      const rest = (await (await fetch(`${slow.urls.market_url}/api/v3/klines?symbol=BTCUSDT&interval=1m`)).json()) as unknown[][];
      expect(rest.map((r) => r[0])).toEqual([lead]);
      const fiveMin = (await (await fetch(`${slow.urls.market_url}/api/v3/klines?symbol=BTCUSDT&interval=5m`)).json()) as unknown[][];
      expect(fiveMin.map((r) => r[0])).toEqual([Date.UTC(2024, 7, 8, 23, 50)]);
    } finally {
      ws.terminate();
      await slow.stop();
    }
  });

  it('a looped replay shifts each pass by whole minutes: bar open times only go forward', async () => {
    const looped = await startSandbox(
      testSandboxConfig((d) => {
        d.market = [{ symbol: 'BTC_USDT', replay: { file: sample, sourceSymbol: 'BTCUSDT', loop: true, speed: 1000 } }];
      }),
    );
    try {
      const deadline = Date.now() + 20_000;
      while (looped.state.market.klines('BTC_USDT', '1m', { limit: 100 }).length < 8 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      const t = looped.state.market.klines('BTC_USDT', '1m', { limit: 100 }).map((k) => k.t);
      expect(t.length).toBeGreaterThanOrEqual(8);
      expect(t.every((x, i) => i === 0 || x === (t[i - 1] as number) + 60_000)).toBe(true);
    } finally {
      await looped.stop();
    }
  });
});
