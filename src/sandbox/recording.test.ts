import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadRecording, parseRecordingLine } from './recording.js';

const sample = path.resolve(import.meta.dirname, '../../backtest-data/btcusdt-sample.ndjson.gz');

describe('recording reader', () => {
  it('reads the bundled sample: one snapshot, every diff and trade, diffs contiguous after the snapshot', () => {
    const events = loadRecording(sample, 'BTCUSDT');
    const count = (k: string): number => events.filter((e) => e.kind === k).length;
    expect([count('snapshot'), count('diff'), count('trade')]).toEqual([1, 1197, 2570]);
    const snap = events.find((e) => e.kind === 'snapshot');
    expect(snap && snap.kind === 'snapshot' && snap.lastUpdateId).toBe(50093239218);
    let prev: number | undefined;
    for (const e of events) {
      if (e.kind !== 'diff') continue;
      if (prev !== undefined) expect(e.U).toBe(prev + 1);
      prev = e.u;
    }
  });

  it('parses one line of each kind and skips other symbols and payloads', () => {
    const t = parseRecordingLine('1723161254087896568 {"stream":"btcusdt@trade","data":{"e":"trade","E":1,"s":"BTCUSDT","t":3,"p":"61837.63000000","q":"0.02000000","T":1,"m":true,"M":true}}', 'BTCUSDT');
    expect(t).toMatchObject({ kind: 'trade', ms: 1723161254087, isBuyerMaker: true });
    expect(t?.kind === 'trade' && t.price.toFixed()).toBe('61837.63');
    expect(parseRecordingLine('1723161254087896568 {"stream":"ethusdt@trade","data":{"e":"trade","s":"ETHUSDT","p":"1","q":"1"}}', 'BTCUSDT')).toBeUndefined();
    expect(parseRecordingLine('1723161254087891268 {"stream":"btcusdt@bookTicker","data":{"u":1,"s":"BTCUSDT","b":"1","B":"1","a":"2","A":"1"}}', 'BTCUSDT')).toBeUndefined();
  });
});
