import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { MAGIC } from '../record/binary/format.js';
import { formatEnvelopeLine, formatHeaderLine, snapshotStream } from '../record/format.js';
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

  it('replays what kancil record writes: the header, enveloped snapshots (its symbol only), ms or ns times', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'kancil-sandbox-rec-'));
    try {
      const file = path.join(dir, 'r.rec.gz');
      const lines = [
        formatHeaderLine({ format: 'kancil-recording', version: 1, source: 'test' }),
        formatEnvelopeLine('1723161254206', snapshotStream('ethusdt'), '{"lastUpdateId":7,"bids":[["1","1"]],"asks":[["2","1"]]}'),
        formatEnvelopeLine('1723161254206652067', snapshotStream('btcusdt'), '{"lastUpdateId":10,"bids":[["61800.00","1.5"]],"asks":[["61800.01","2"]]}'),
        formatEnvelopeLine('1723161254300', 'btcusdt@depth@100ms', '{"e":"depthUpdate","E":1723161255300,"s":"BTCUSDT","U":11,"u":12,"b":[["61800.00","0"]],"a":[]}'),
        formatEnvelopeLine('1723161254400', 'btcusdt@bookTicker', '{"u":12,"s":"BTCUSDT","b":"61799.99","B":"1","a":"61800.01","A":"2"}'),
        '# a comment line mid-file\n',
        formatEnvelopeLine('1723161254500', 'btcusdt@trade', '{"e":"trade","E":1723161255500,"s":"BTCUSDT","t":5,"p":"61800.01","q":"0.5","T":1723161255499,"m":false,"M":true}'),
      ];
      writeFileSync(file, gzipSync(lines.join('')));
      const events = loadRecording(file, 'BTCUSDT');
      expect(events.map((e) => `${e.kind} ${e.ms}`)).toEqual(['snapshot 1723161254206', 'diff 1723161254300', 'trade 1723161254500']);
      expect(events[0]?.kind === 'snapshot' && events[0].lastUpdateId).toBe(10);
      // A binary recording is named as such, not read as text.
      const krb = path.join(dir, 'r.krb');
      writeFileSync(krb, Buffer.concat([Buffer.from(MAGIC, 'latin1'), Buffer.alloc(16)]));
      expect(() => loadRecording(krb, 'BTCUSDT')).toThrow(/r\.krb.*a binary \(\.krb\) recording: the sandbox replays text recordings/);
      // A line that is no `<time> <json>` stops the load, naming the file and the line.
      writeFileSync(file, `${lines.slice(0, 3).join('')}1723161254300 {"stream":\n`);
      expect(() => loadRecording(file, 'BTCUSDT')).toThrow(/r\.rec\.gz.*line 4/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
