/**
 * Reader of the `<local receive ns> <json>` line recordings (gzip or plain) that the bundled
 * sample and ../shared/data use: combined-stream envelopes of depthUpdate and trade payloads
 * plus inline REST depth snapshots. Other payloads (bookTicker, aggTrade) are skipped: the
 * engine derives its own. Values are parsed to Decimal once here.
 */
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { ConfigError, type Decimal, parseDecimal } from '../core/index.js';
import type { BookLevel } from '../core/types.js';

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

/** Parses one line; undefined for payloads the replay does not use. `symbol` is the recording's spelling (e.g. BTCUSDT). */
export function parseRecordingLine(line: string, symbol: string): RecordedEvent | undefined {
  const sp = line.indexOf(' ');
  if (sp <= 0) return undefined;
  const nsText = line.slice(0, sp);
  if (!/^\d{7,}$/.test(nsText)) throw new TypeError(`bad receive time ${JSON.stringify(nsText)}`);
  const ms = Number(nsText.slice(0, -6));
  const doc = JSON.parse(line.slice(sp + 1)) as Record<string, unknown>;
  if ('lastUpdateId' in doc) return { kind: 'snapshot', ms, lastUpdateId: Number(doc.lastUpdateId), bids: levels('bids', doc.bids), asks: levels('asks', doc.asks) };
  const data = doc.data as Record<string, unknown> | undefined;
  if (!data || data.s !== symbol) return undefined;
  if (data.e === 'depthUpdate') return { kind: 'diff', ms, E: Number(data.E), U: Number(data.U), u: Number(data.u), bids: levels('b', data.b), asks: levels('a', data.a) };
  if (data.e === 'trade') return { kind: 'trade', ms, T: Number(data.T), price: parseDecimal('p', data.p), qty: parseDecimal('q', data.q), isBuyerMaker: data.m === true };
  return undefined;
}

/** Loads a whole recording; errors name the file and line. */
export function loadRecording(file: string, symbol: string): RecordedEvent[] {
  let text: string;
  try {
    const raw = readFileSync(file);
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
