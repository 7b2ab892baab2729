/**
 * Reader of text line recordings (gzip or plain) for the sandbox's replay: what `kancil record`
 * writes (a `#` header, `<receive time> <envelope>` lines, snapshots as `<symbol>@depthSnapshot`
 * envelopes; backtest-data/README.md) and the `<ns> <json>` files of ../shared/data (bare
 * snapshot lines). Depth diffs, trades and snapshots of the symbol are kept; other payloads
 * (bookTicker, aggTrade) are skipped: the engine derives its own. Values are parsed to Decimal
 * once here. The sandbox replays a recording as it reads it (./recording-stream.ts);
 * {@link loadRecording} holds a whole (short) file, for tests and benches. The sandbox imports
 * only core and sim, so the few rules of the line format it needs are spelled here (the
 * recorder's own reader is record/format.ts).
 */
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { ConfigError, type Decimal, parseDecimal } from '../core/index.js';
import type { BookLevel } from '../core/types.js';

/** Stream-name suffix of a snapshot line (record/format's SNAPSHOT_SUFFIX). */
const SNAPSHOT_SUFFIX = '@depthSnapshot';
/** First bytes of a binary recording (record/binary/format's MAGIC). */
export const BINARY_MAGIC = 'KANCILRB';

/** A line's receive time in whole ms: nanoseconds when it has 15 digits or more, else milliseconds. */
function receiveMs(text: string): number {
  if (!/^\d+$/.test(text)) throw new TypeError(`bad receive time ${JSON.stringify(text.slice(0, 30))}`);
  return text.length >= 15 ? Number(text.slice(0, -6)) : Number(text);
}

/** One replayable message, with its receive time in ms. */
export type RecordedEvent =
  | { readonly kind: 'snapshot'; readonly ms: number; readonly lastUpdateId: number; readonly bids: readonly BookLevel[]; readonly asks: readonly BookLevel[] }
  | { readonly kind: 'diff'; readonly ms: number; readonly E: number; readonly U: number; readonly u: number; readonly bids: readonly BookLevel[]; readonly asks: readonly BookLevel[] }
  | { readonly kind: 'trade'; readonly ms: number; readonly T: number; readonly price: Decimal; readonly qty: Decimal; readonly isBuyerMaker: boolean };

function levels(field: string, v: unknown): BookLevel[] {
  if (!Array.isArray(v)) throw new TypeError(`${field} is not an array`);
  return v.map((l: unknown, i) => {
    if (!Array.isArray(l)) throw new TypeError(`${field}[${i}] is not a level`);
    return { price: parseDecimal(`${field}[${i}][0]`, l[0]), qty: parseDecimal(`${field}[${i}][1]`, l[1]) };
  });
}

/**
 * Parses one line; undefined for comments and payloads the replay does not use. `symbol` is the
 * recording's spelling (e.g. BTCUSDT). Throws on a line that is not `<time> <json>`.
 */
export function parseRecordingLine(line: string, symbol: string): RecordedEvent | undefined {
  if (line.startsWith('#')) return undefined;
  const sp = line.indexOf(' ');
  if (sp <= 0) throw new TypeError('expected "<time> <json>"');
  const ms = receiveMs(line.slice(0, sp));
  const doc = JSON.parse(line.slice(sp + 1)) as unknown;
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) throw new TypeError('payload is not an object');
  const o = doc as Record<string, unknown>;
  const stream = typeof o.stream === 'string' && 'data' in o ? o.stream : undefined;
  const payload = (stream === undefined ? o : o.data) as Record<string, unknown> | null;
  if (typeof payload !== 'object' || payload === null) return undefined;
  // A bare snapshot line belongs to the file's symbol; an enveloped one names its own.
  const snapshotOf = stream === undefined ? '' : stream.endsWith(SNAPSHOT_SUFFIX) ? stream.slice(0, -SNAPSHOT_SUFFIX.length) : undefined;
  if (snapshotOf !== undefined && 'lastUpdateId' in payload) {
    if (snapshotOf !== '' && snapshotOf !== symbol.toLowerCase()) return undefined;
    return { kind: 'snapshot', ms, lastUpdateId: Number(payload.lastUpdateId), bids: levels('bids', payload.bids), asks: levels('asks', payload.asks) };
  }
  const data = stream === undefined ? undefined : payload;
  if (!data || data.s !== symbol) return undefined;
  if (data.e === 'depthUpdate') return { kind: 'diff', ms, E: Number(data.E), U: Number(data.U), u: Number(data.u), bids: levels('b', data.b), asks: levels('a', data.a) };
  if (data.e === 'trade') return { kind: 'trade', ms, T: Number(data.T), price: parseDecimal('p', data.p), qty: parseDecimal('q', data.q), isBuyerMaker: data.m === true };
  return undefined;
}

/** Loads a whole recording into memory (tests, benches; the sandbox streams it); errors name the file and line. */
export function loadRecording(file: string, symbol: string): RecordedEvent[] {
  let text: string;
  try {
    const raw = readFileSync(file);
    if (raw.subarray(0, BINARY_MAGIC.length).toString('latin1') === BINARY_MAGIC) throw new Error('a binary (.krb) recording: the sandbox replays text recordings (kancil record writes them; .rec.gz)');
    text = (raw[0] === 0x1f && raw[1] === 0x8b ? gunzipSync(raw) : raw).toString('utf8');
  } catch (e) {
    throw new ConfigError(file, '', undefined, `cannot read recording: ${e instanceof Error ? e.message : String(e)}`);
  }
  const out: RecordedEvent[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = (lines[i] as string).trim();
    if (line === '') continue;
    try {
      const ev = parseRecordingLine(line, symbol);
      if (ev) out.push(ev);
    } catch (e) {
      throw new ConfigError(file, `line ${i + 1}`, line.slice(0, 80), e instanceof Error ? e.message : String(e));
    }
  }
  if (!out.some((e) => e.kind === 'snapshot')) throw new ConfigError(file, '', undefined, `recording has no depth snapshot for ${symbol}`);
  return out;
}
