/**
 * Replays real recordings through the six-step synchroniser and checks the book against the
 * exchange's own bookTicker at every update id both streams share, and that it never crosses.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { BookSync } from '../../src/exchange/book/book-sync.js';
import { type ReadStats, readRecording } from '../../src/record/reader.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const shared = path.resolve(repoRoot, '../shared/data');

interface ReplayResult {
  compared: number;
  mismatches: string[];
  crossed: number;
  applied: number;
  ready: boolean;
  stats: ReadStats;
}

/** Replays files; compares best bid/ask (price and qty) with bookTicker at equal update ids. */
async function replay(files: string[], symbol: string): Promise<ReplayResult> {
  const sync = new BookSync(symbol, { requestSnapshot: () => undefined, onStatus: () => undefined });
  const tickers = new Map<number, string>();
  const tops = new Map<number, string>();
  let crossed = 0;
  const stats: ReadStats = { lines: 0, items: 0, malformed: 0 };
  const record = (): void => {
    if (!sync.book.ready) return;
    if (sync.book.isCrossed()) crossed++;
    const b = sync.book.bestBid();
    const a = sync.book.bestAsk();
    tops.set(sync.book.lastUpdateId, `${b?.price.toFixed()} ${b?.qty.toFixed()} ${a?.price.toFixed()} ${a?.qty.toFixed()}`);
  };
  for await (const item of readRecording(files, { stats })) {
    if (item.kind === 'snapshot') {
      // Diffs buffered before the snapshot line are applied inside onSnapshot (steps 3-5).
      sync.onSnapshot(item.snapshot, item.recvTime);
      record();
      continue;
    }
    const ev = item.event;
    if (ev.type === 'depthDiff') {
      sync.onDiff({ U: ev.firstUpdateId, u: ev.finalUpdateId, E: ev.E, bids: ev.bids, asks: ev.asks });
      record();
    } else if (ev.type === 'bookTicker') {
      tickers.set(ev.updateId, `${ev.bidPrice.toFixed()} ${ev.bidQty.toFixed()} ${ev.askPrice.toFixed()} ${ev.askQty.toFixed()}`);
    }
  }
  const mismatches: string[] = [];
  let compared = 0;
  for (const [u, top] of tops) {
    const t = tickers.get(u);
    if (t === undefined) continue;
    compared++;
    if (t !== top) mismatches.push(`u=${u}: book ${top} vs bookTicker ${t}`);
  }
  return { compared, mismatches, crossed, applied: sync.stats.applied, ready: sync.book.ready, stats };
}

describe.skipIf(!existsSync(shared))('book replay on real recordings (needs ../shared/data, absent outside the team machines)', () => {
  it('BTCUSDT: best bid/ask equal bookTicker at all 1,072 shared update ids, never crossed', async () => {
    const r = await replay([path.join(shared, 'binance_spot_btcusdt_20240808.gz'), path.join(shared, 'binance_spot_btcusdt_20240809.gz')], 'BTCUSDT');
    expect(r.stats.malformed).toBe(0);
    expect(r.mismatches).toEqual([]);
    expect(r.compared).toBe(1072);
    expect(r.crossed).toBe(0);
    expect(r.ready).toBe(true);
  });

  it('ETHUSDT: best bid/ask equal bookTicker at all 1,056 shared update ids, never crossed', async () => {
    const r = await replay([path.join(shared, 'binance_spot_ethusdt_20240808.gz'), path.join(shared, 'binance_spot_ethusdt_20240809.gz')], 'ETHUSDT');
    expect(r.stats.malformed).toBe(0);
    expect(r.mismatches).toEqual([]);
    expect(r.compared).toBe(1056);
    expect(r.crossed).toBe(0);
  });
});

describe('book replay on bundled data (always runs)', () => {
  it('the bundled BTCUSDT sample synchronises and never crosses', async () => {
    const r = await replay([path.join(repoRoot, 'backtest-data/btcusdt-sample.ndjson.gz')], 'BTCUSDT');
    expect(r.stats.malformed).toBe(0);
    expect(r.ready).toBe(true);
    expect(r.applied).toBeGreaterThan(1000);
    expect(r.crossed).toBe(0);
  });

  it('the tiny fixture: buffered diffs before the snapshot, bridge, removal, bookTicker agreement', async () => {
    const r = await replay([path.join(repoRoot, 'test/replay/fixtures/tiny-book.rec')], 'TESTIDR');
    expect(r.stats.malformed).toBe(1); // the deliberately broken line
    expect(r.mismatches).toEqual([]);
    expect(r.compared).toBe(3);
    expect(r.crossed).toBe(0);
  });
});
