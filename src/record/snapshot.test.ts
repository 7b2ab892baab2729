import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { OrderBookSnapshot } from '../core/types.js';
import { OrderBook } from '../exchange/book/order-book.js';
import { levels } from '../exchange/stream/wire-fields.js';
import { readRecording, type ReadStats, type RecordedItem } from './reader.js';
import { lazySnapshot, rawSnapshotLevels, snapshotInput } from './snapshot.js';

const dir = mkdtempSync(path.join(tmpdir(), 'kancil-snapshot-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const bids = [['61837.63000000', '3.78826000'], ['61737.63', '0.5', 'extra']];
const asks = [['61837.64000000', '1.54698000']];
const eager = { lastUpdateId: 7, bids: levels('bids', bids), asks: levels('asks', asks) };

describe('lazySnapshot', () => {
  it('reads, compares, spreads and serialises like the eagerly parsed snapshot', () => {
    const lazy = lazySnapshot(7, bids, asks) as OrderBookSnapshot;
    expect(lazy).toEqual(eager);
    expect(JSON.stringify(lazy)).toBe(JSON.stringify(eager));
    expect({ ...lazy }).toEqual(eager);
    expect(lazy.bids).toBe(lazy.bids);
    expect(rawSnapshotLevels(lazy)).toEqual({ bids, asks });
    expect(rawSnapshotLevels({ ...lazy })).toBeUndefined();
  });

  it('leaves to the eager parser every level it would not take as it is', () => {
    for (const bad of [[['1e3', '1']], [['.5', '1']], [['5.', '1']], [['1', 2]], [['1']], [['1234567890123456789', '1']], [['1.1234567890123456789', '1']], 'x']) {
      expect(lazySnapshot(7, bad, asks), JSON.stringify(bad)).toBeUndefined();
      expect(lazySnapshot(7, asks, bad), JSON.stringify(bad)).toBeUndefined();
    }
  });

  it('a local book loads the same levels from the strings as from the Decimals', () => {
    const fromDecimals = new OrderBook('BTCUSDT');
    const fromStrings = new OrderBook('BTCUSDT');
    const lazy = lazySnapshot(7, bids, asks) as OrderBookSnapshot;
    const input = snapshotInput(lazy);
    expect(input.bids).toBe(bids);
    fromDecimals.loadSnapshot(7, eager.bids, eager.asks);
    fromStrings.loadSnapshot(input.lastUpdateId, input.bids, input.asks);
    expect(fromStrings.top(10)).toEqual(fromDecimals.top(10));
    expect(snapshotInput(eager)).toBe(eager);
  });

  it('the reader yields lazy snapshots where it can, and reports malformed ones as before', async () => {
    const lines = [
      `1700000000000000001 {"stream":"btcusdt@depthSnapshot","data":{"lastUpdateId":7,"bids":${JSON.stringify(bids)},"asks":${JSON.stringify(asks)}}}`,
      // A JSON number level: the eager parser takes it, as before.
      '1700000000000000002 {"stream":"btcusdt@depthSnapshot","data":{"lastUpdateId":8,"bids":[[1.5,"2"]],"asks":[]}}',
      // Not an amount: malformed, as before.
      '1700000000000000003 {"stream":"btcusdt@depthSnapshot","data":{"lastUpdateId":9,"bids":[["-1","2"]],"asks":[]}}',
    ];
    const file = path.join(dir, 'snapshots.txt');
    writeFileSync(file, `${lines.join('\n')}\n`);
    const stats: ReadStats = { lines: 0, items: 0, malformed: 0 };
    const errors: string[] = [];
    const items: RecordedItem[] = [];
    for await (const it of readRecording(file, { stats, onMalformed: (err) => errors.push(err.message) })) items.push(it);
    expect(stats.malformed).toBe(1);
    expect(errors[0]).toContain('bids[0][0]');
    const snaps = items.flatMap((i) => (i.kind === 'snapshot' ? [i.snapshot] : []));
    expect(snaps).toHaveLength(2);
    expect(snaps[0]).toEqual(eager);
    expect(rawSnapshotLevels(snaps[0] as OrderBookSnapshot)).toBeDefined();
    expect(snaps[1]).toEqual({ lastUpdateId: 8, bids: levels('bids', [['1.5', '2']]), asks: [] });
    expect(rawSnapshotLevels(snaps[1] as OrderBookSnapshot)).toBeUndefined();
  });
});
