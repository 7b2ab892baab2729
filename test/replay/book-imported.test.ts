/** Imported real data (cryptofeed text and kline CSV) replays correctly from the kancil format. */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { BookSync } from '../../src/exchange/book/book-sync.js';
import { convertCryptofeed, convertKlineCsv, writeRecording } from '../../src/record/importers.js';
import { type ReadStats, readRecording, readRecordLines } from '../../src/record/reader.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const shared = path.resolve(repoRoot, '../shared/data');
const tmp = mkdtempSync(path.join(tmpdir(), 'kancil-imported-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe.skipIf(!existsSync(shared))('imports of ../shared/data (absent outside the team machines)', () => {
  it('cryptofeed multi-symbol file: every book synchronises from its bridging snapshot, no gap, never crossed', async () => {
    const out = path.join(tmp, 'cf.rec.gz');
    await writeRecording(out, { source: 'cryptofeed sample_data', licence: 'credit Bryant Moscon (cryptofeed)' }, convertCryptofeed(path.join(shared, 'binance_spot_multi_2021-04-04_cryptofeed.txt')));
    const syncs = new Map<string, BookSync>();
    const get = (s: string): BookSync => {
      let b = syncs.get(s);
      if (!b) syncs.set(s, (b = new BookSync(s, { requestSnapshot: () => undefined, onStatus: () => undefined })));
      return b;
    };
    let crossed = 0;
    let klines = 0;
    let aggTrades = 0;
    const stats: ReadStats = { lines: 0, items: 0, malformed: 0 };
    for await (const it of readRecording(out, { stats })) {
      if (it.kind === 'snapshot') get(it.symbol).onSnapshot(it.snapshot, it.recvTime);
      else if (it.event.type === 'depthDiff') {
        const b = get(it.event.symbol);
        b.onDiff({ U: it.event.firstUpdateId, u: it.event.finalUpdateId, E: it.event.E, bids: it.event.bids, asks: it.event.asks });
        if (b.book.ready && b.book.isCrossed()) crossed++;
      } else if (it.event.type === 'kline') klines++;
      else if (it.event.type === 'aggTrade') aggTrades++;
    }
    expect(stats.malformed).toBe(0);
    expect([...syncs.keys()].sort()).toEqual(['BTCUSDT', 'DOTUSDT', 'ETHUSDT']);
    for (const b of syncs.values()) {
      expect(b.book.ready).toBe(true);
      expect(b.stats.gaps).toBe(0);
      expect(b.stats.applied).toBeGreaterThan(700);
    }
    expect(crossed).toBe(0);
    expect(klines).toBe(118);
    expect(aggTrades).toBe(1910);
  });

  it('kline CSV: all 44,640 August 2024 minutes, contiguous', async () => {
    const out = path.join(tmp, 'k.rec.gz');
    expect(await writeRecording(out, { source: 'backtest_and_deploy', licence: 'MIT, (c) 2025 Yannick Schurmann' }, convertKlineCsv(path.join(shared, 'binance_spot_btcusdt_1m_2024-08.csv.gz'), 'BTCUSDT', '1m'))).toBe(44_640);
    let prev: number | undefined;
    let n = 0;
    let breaks = 0;
    // Raw lines keep this fast; the typed kline parse is covered by src/record/importers.test.ts.
    for await (const rec of readRecordLines(out)) {
      const t = (rec.data as { k: { t: number } }).k.t;
      if (prev !== undefined && t !== prev + 60_000) breaks++;
      prev = t;
      n++;
    }
    expect(n).toBe(44_640);
    expect(breaks).toBe(0);
  });
});
