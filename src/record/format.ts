/**
 * The kancil recording format (documented in backtest-data/README.md):
 *
 *   # {"format":"kancil-recording","version":1,...}      optional header/comment lines
 *   <receive time> <combined-stream envelope JSON>         one per received message
 *   <receive time> {"stream":"<sym>@depthSnapshot","data":{lastUpdateId,bids,asks}}
 *
 * The receive time is local wall-clock time as an integer: nanoseconds (>= 1e14) or milliseconds.
 * Lines of the `<ns> <json>` files in ../shared/data read as-is; their bare snapshot line
 * (`{"lastUpdateId":...}` without an envelope) is attributed to the symbol of the file.
 */
import { ParseError } from '../core/errors.js';
import { quoteUnsafeIntegers } from '../exchange/transport/unsafeIntegers.js';

/** Stream-name suffix that marks a REST depth snapshot line. */
export const SNAPSHOT_SUFFIX = '@depthSnapshot';

/** Header written as the first line of every file. */
export interface RecordingHeader {
  readonly format: 'kancil-recording';
  readonly version: 1;
  /** Where the data came from (exchange URL, or the imported file and its licence). */
  readonly source?: string;
  readonly licence?: string;
  readonly createdAt?: string;
  readonly [k: string]: unknown;
}

/** One parsed line: receive time and the envelope parts. */
export interface RecordLine {
  /** Local receive time in ms (fractional when the file holds ns). */
  readonly recvTime: number;
  /** Receive time exactly as written. */
  readonly recvRaw: string;
  /** Stream name; `<sym>@depthSnapshot` for snapshots; undefined for a bare snapshot line. */
  readonly stream: string | undefined;
  /** The raw payload. */
  readonly data: unknown;
}

/** Converts the written receive time to ms; ns when the value has 15+ digits. */
export function recvToMs(raw: string): number {
  if (!/^\d+$/.test(raw)) throw new ParseError('recvTime', raw, 'expected an integer');
  if (raw.length >= 15) return Number(raw.slice(0, -6)) + Number(raw.slice(-6)) / 1e6;
  return Number(raw);
}

/** Current time as an integer ns string (ms clock plus the sub-ms part of the monotonic clock). */
export function nowNs(nowMs: number = Date.now()): string {
  const sub = Number(process.hrtime.bigint() % 1_000_000n);
  return `${Math.floor(nowMs)}${String(sub).padStart(6, '0')}`;
}

/** Parses one data line; returns undefined for blank and `#` comment lines. Throws ParseError. */
export function parseRecordLine(line: string): RecordLine | undefined {
  if (line.length === 0 || line.charCodeAt(0) === 35) return undefined;
  const sp = line.indexOf(' ');
  if (sp <= 0) throw new ParseError('line', line, 'expected "<time> <json>"');
  const recvRaw = line.slice(0, sp);
  const recvTime = recvToMs(recvRaw);
  let doc: unknown;
  try {
    doc = JSON.parse(line.slice(sp + 1));
  } catch (err) {
    throw new ParseError('json', line.slice(sp + 1, sp + 80), (err as Error).message);
  }
  if (typeof doc === 'object' && doc !== null && !Array.isArray(doc)) {
    const o = doc as Record<string, unknown>;
    if (typeof o.stream === 'string' && 'data' in o) {
      // Parsed again only in the rare line whose trade ids passed 2^53 (quoting every line first
      // would cost the replay a scan of each line): the file holds the exact digits.
      if (lostTradeIdDigits(o.data)) return parseRecordLine(`${recvRaw} ${quoteUnsafeIntegers(line.slice(sp + 1))}`);
      return { recvTime, recvRaw, stream: o.stream, data: o.data };
    }
  }
  return { recvTime, recvRaw, stream: undefined, data: doc };
}

const unsafeInteger = (v: unknown): boolean => typeof v === 'number' && Number.isInteger(v) && !Number.isSafeInteger(v);

/** True when a trade id of a trade, aggregate trade or kline payload was a number JSON.parse rounded. */
function lostTradeIdDigits(data: unknown): boolean {
  if (typeof data !== 'object' || data === null) return false;
  const d = data as Record<string, unknown>;
  switch (d.e) {
    case 'trade':
      return unsafeInteger(d.t) || unsafeInteger(d.b) || unsafeInteger(d.a);
    case 'aggTrade':
      return unsafeInteger(d.a) || unsafeInteger(d.f) || unsafeInteger(d.l);
    case 'kline': {
      const k = d.k as Record<string, unknown> | null | undefined;
      return typeof k === 'object' && k !== null && (unsafeInteger(k.f) || unsafeInteger(k.L));
    }
    default:
      return false;
  }
}

/** Formats one data line. `json` must be the raw payload text (kept verbatim, never re-serialised). */
export function formatEnvelopeLine(recvRaw: string, stream: string, json: string): string {
  return `${recvRaw} {"stream":${JSON.stringify(stream)},"data":${json}}\n`;
}

/** Formats the header line. */
export function formatHeaderLine(h: RecordingHeader): string {
  return `# ${JSON.stringify(h)}\n`;
}

/** Stream name of a snapshot line for a stream-spelled symbol (`btcusdt`). */
export function snapshotStream(streamSymbol: string): string {
  return `${streamSymbol}${SNAPSHOT_SUFFIX}`;
}
