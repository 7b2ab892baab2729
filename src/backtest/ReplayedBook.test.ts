import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { Decimal } from '../core/decimal.js';
import type { WireFilter } from '../core/filters.js';
import { BookSync } from '../exchange/book/book-sync.js';
import { writeBinaryRecording } from '../record/binary/writer.js';
import { readLines } from '../record/line-reader.js';
import { type RecordedItem, readRecording } from '../record/reader.js';
import { MatchingEngine } from '../sim/engine.js';
import { PROJECT_ROOT } from '../strategy/loader.js';
import { BACKTEST_ACCOUNT, symbolInfoOf } from './Backtest.js';
import { ReplayedBook } from './ReplayedBook.js';

const SAMPLE = path.join(PROJECT_ROOT, 'backtest-data/btcusdt-sample.ndjson.gz');
const dir = mkdtempSync(path.join(tmpdir(), 'kancil-replayed-book-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const FILTERS: WireFilter[] = [
  { filterType: 'PRICE_FILTER', minPrice: '0.01', maxPrice: '1000000', tickSize: '0.01' },
  { filterType: 'LOT_SIZE', minQty: '0.00001', maxQty: '9000', stepSize: '0.000001' },
];

async function items(file: string): Promise<RecordedItem[]> {
  const out: RecordedItem[] = [];
  for await (const it of readRecording(file, { symbolOf: (w) => (w === 'BTCUSDT' ? 'BTC_USDT' : w), snapshotSymbol: 'BTCUSDT' })) out.push(it);
  return out;
}

/** An exchange-side book with its engine, fed `list`; the engine's depth after each diff. */
function replay(list: readonly RecordedItem[]): { depths: string[]; applied: number } {
  const engine = new MatchingEngine({
    symbols: [{ info: symbolInfoOf('BTC_USDT', FILTERS) }],
    accounts: [{ id: BACKTEST_ACCOUNT, makerCommission: new Decimal(0), takerCommission: new Decimal(0), balances: {} }],
    bufferEvents: false,
  });
  let now = 0;
  const book = new ReplayedBook('BTC_USDT', () => undefined, engine, () => now);
  const depths: string[] = [];
  for (const it of list) {
    if (it.kind === 'snapshot') book.snapshot(it.snapshot, now);
    else if (it.event.type === 'depthDiff') {
      now = it.event.E;
      book.diff(it.event);
      // The touch and the levels near it after every diff; the whole book now and then.
      depths.push(JSON.stringify(engine.depth('BTC_USDT', depths.length % 200 === 0 ? 5000 : 50)));
    }
  }
  depths.push(JSON.stringify(engine.depth('BTC_USDT', 5000)));
  return { depths, applied: book.sync.stats.applied };
}

describe('ReplayedBook with an engine', () => {
  it("a binary recording's diffs move the engine as parsed diffs do, the exchange's book keeping only update ids", async () => {
    const bin = path.join(dir, 'sample.krb');
    await writeBinaryRecording(bin, { source: 'test', licence: 'CC0' }, readLines(SAMPLE));
    // The reference: eagerly parsed events (a spread copy keeps no wire strings or scaled levels),
    // which the synchroniser applies to the book's levels, the engine following.
    const eager = (await items(SAMPLE)).map((it) => (it.kind === 'market' && it.event.type === 'depthDiff' ? { ...it, event: { ...it.event } } : it));
    const text = replay(eager);
    const advance = vi.spyOn(BookSync.prototype, 'advanceNext');
    const binary = replay(await items(bin));
    // Nearly every diff of the binary form takes the path that leaves the book's levels alone.
    expect(advance.mock.calls.length).toBeGreaterThan(0.9 * binary.depths.length);
    advance.mockRestore();
    expect(binary.applied).toBe(text.applied);
    expect(binary.depths.length).toBe(text.depths.length);
    for (let i = 0; i < text.depths.length; i++) if (binary.depths[i] !== text.depths[i]) expect(binary.depths[i]).toBe(text.depths[i]);
  });
});
