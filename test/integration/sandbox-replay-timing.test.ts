/**
 * When a replay's book reaches the streams. The recorded diffs are the recorded exchange's own
 * 100 ms batches: the sandbox sends each on when it applies it, at any replay speed, instead of
 * holding it for its next 100 ms wall tick (which, at speed s, showed clients the book up to
 * 100 x s ms of recording late). A held market starts at the replay's snapshot when asked.
 */
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { type RunningSandbox, startSandbox } from '../../src/sandbox/index.js';
import { testSandboxConfig } from '../../src/sandbox/test-config.js';

const sample = path.resolve(import.meta.dirname, '../../backtest-data/btcusdt-sample.ndjson.gz');
let sbx: RunningSandbox | undefined;
afterEach(async () => {
  await sbx?.stop();
  sbx = undefined;
});

async function start(speed: number): Promise<RunningSandbox> {
  sbx = await startSandbox(
    testSandboxConfig((d) => {
      d.market = [{ symbol: 'BTC_USDT', replay: { file: sample, sourceSymbol: 'BTCUSDT', loop: false, speed } }];
    }),
    { holdMarket: true },
  );
  return sbx;
}

async function connect(url: string, onMessage: (data: { U: number; u: number; E: number }) => void): Promise<WebSocket> {
  const ws = new WebSocket(url);
  ws.on('message', (raw) => onMessage((JSON.parse(raw.toString()) as { data: { U: number; u: number; E: number } }).data));
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  return ws;
}

describe('replay timing of the sandbox streams', () => {
  it('sends replayed diffs on when applied: the oldest change of a 100 ms message is a few ms old at 10x, not a wall tick', async () => {
    const s = await start(10);
    const appliedAt = new Map<number, number>();
    const off = s.engine.subscribe((e) => {
      if (e.type === 'depthUpdate') appliedAt.set(e.U, e.E);
    });
    const got: { U: number; u: number; E: number }[] = [];
    const ws = await connect(`${s.urls.stream_url}/stream?streams=btcusdt@depth@100ms`, (d) => got.push(d));
    try {
      s.startMarket();
      await new Promise((r) => setTimeout(r, 1500));
      off();
      // Sandbox-side ages (the message's E is when it was sent, the engine's when it applied the
      // change), so a loaded test machine delays both alike. Batched per wall tick, the oldest
      // change of a message waited ~90 ms at the median.
      const ages = got.flatMap((d) => {
        const at = appliedAt.get(d.U);
        return at === undefined ? [] : [d.E - at];
      });
      expect(ages.length).toBeGreaterThan(5);
      expect(ages.sort((a, b) => a - b)[Math.floor(ages.length / 2)]).toBeLessThan(30);
      // Still one consecutive sequence a client can follow.
      for (let i = 1; i < got.length; i++) expect(got[i]?.U).toBe((got[i - 1]?.u ?? 0) + 1);
    } finally {
      ws.close();
    }
  });

  it('a held market moves nothing until startMarket(), then replays from the snapshot and ends', async () => {
    const s = await start(200);
    await new Promise((r) => setTimeout(r, 300));
    expect(s.engine.depth('BTC_USDT', 5).bids).toEqual([]);
    expect(s.feeds).toEqual([]);
    s.startMarket();
    s.startMarket();
    await new Promise((r) => setTimeout(r, 50));
    expect(s.engine.depth('BTC_USDT', 5).bids.length).toBeGreaterThan(0);
    expect(s.feeds.length).toBe(1);
    await s.marketEnded;
    expect(s.feeds[0]?.failed).toBe(0);
  });
});
