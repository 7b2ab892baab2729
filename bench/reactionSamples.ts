/**
 * What the reaction bench's probes and strategy record, kept so that recording adds no survivors
 * to the measured bot's heap: the bot runs in the bench's process, and a probe that kept each
 * frame (its bytes and the read buffer they slice) and maps of id strings grew the young
 * generation's survivors by ~1 MB/s, lengthening every scavenge the figures then counted. Each
 * record is numbers in typed arrays allocated before a stretch: a frame is classified where it
 * arrives, by searching its bytes (no string, no JSON), and ids are their numbers (trade ids are
 * numeric; a generated clientId ends in its sequence number, src/strategy/clientIds.ts).
 */

/** Pairs of numbers (key, time) appended in order; a NaN key (no id) is not kept, and when full later pairs are dropped (counted). */
export class Pairs {
  keys: Float64Array;
  at: Float64Array;
  n = 0;
  dropped = 0;

  constructor(capacity: number) {
    this.keys = new Float64Array(capacity);
    this.at = new Float64Array(capacity);
  }

  push(key: number, at: number): void {
    if (Number.isNaN(key)) return;
    if (this.n === this.keys.length) {
      this.dropped++;
      return;
    }
    this.keys[this.n] = key;
    this.at[this.n++] = at;
  }

  /** key -> time (the last time a key was pushed); built after a stretch, off the measured path. */
  toMap(): Map<number, number> {
    const m = new Map<number, number>();
    for (let i = 0; i < this.n; i++) m.set(this.keys[i] as number, this.at[i] as number);
    return m;
  }

  /** Empties it, growing it first when asked for more room. */
  reset(capacity: number): void {
    if (capacity > this.keys.length) {
      this.keys = new Float64Array(capacity);
      this.at = new Float64Array(capacity);
    }
    this.n = 0;
    this.dropped = 0;
  }
}

/** What a frame is, for the bench: a trade the strategy answers, another trade, a fill's executionReport, or anything else. */
export const FrameKind = { tick: 0, trade: 1, fill: 2, other: 3 } as const;
/** One of FrameKind's values. */
export type FrameKind = (typeof FrameKind)[keyof typeof FrameKind];

const E_FIELD = Buffer.from('"e":"');
const X_FIELD = Buffer.from('"x":"');
const T_FIELD = Buffer.from('"t":');
const P_FIELD = Buffer.from('"p":"');
const TRADE = Buffer.from('trade"');
const REPORT = Buffer.from('executionReport"');
const X_TRADE = Buffer.from('TRADE"');

/**
 * Classifies a stream frame's bytes and reads its trade id (`t`) without decoding it: a public
 * trade at `tickPrice` is a tick, other trades are trades, an executionReport of a trade (`x`
 * TRADE) is a fill. Returns the kind; `out[0]` gets the trade id (NaN when there is none). The
 * fields are found by a scan in JS, forward from the event type (near the start of a frame):
 * Buffer's indexOf crosses into C++ at each call (~0.7 us a frame against ~0.3 this way).
 */
export function classifyFrame(data: Buffer, tickPrice: Buffer, out: Float64Array): FrameKind {
  const e = find(data, E_FIELD, 0);
  if (e < 0) return FrameKind.other;
  if (startsAt(data, TRADE, e)) {
    out[0] = numberAfter(data, T_FIELD, e);
    const p = find(data, P_FIELD, e);
    if (p < 0 || !startsAt(data, tickPrice, p)) return FrameKind.trade;
    // 60000 exactly, or 60000 followed by a fraction of zeros ("60000.00").
    let i = p + tickPrice.length;
    if (data[i] === 0x2e) for (i++; data[i] === 0x30; i++);
    return data[i] === 0x22 ? FrameKind.tick : FrameKind.trade;
  }
  if (!startsAt(data, REPORT, e)) return FrameKind.other;
  const x = find(data, X_FIELD, e);
  if (x < 0 || !startsAt(data, X_TRADE, x)) return FrameKind.other;
  out[0] = numberAfter(data, T_FIELD, e);
  return FrameKind.fill;
}

/** Index just past the first `needle` at or after `from`, or -1. */
function find(data: Buffer, needle: Buffer, from: number): number {
  const first = needle[0];
  const last = data.length - needle.length;
  for (let i = from; i <= last; i++) if (data[i] === first && startsAt(data, needle, i, 1)) return i + needle.length;
  return -1;
}

/** Whether `data` holds `needle` (from its byte `skip`) at index `at` (+ `skip`). */
function startsAt(data: Buffer, needle: Buffer, at: number, skip = 0): boolean {
  if (at + needle.length > data.length) return false;
  for (let j = skip; j < needle.length; j++) if (data[at + j] !== needle[j]) return false;
  return true;
}

/** The non-negative integer after `field` (quoted or not), or NaN. */
function numberAfter(data: Buffer, field: Buffer, from: number): number {
  let i = find(data, field, from);
  if (i < 0) return NaN;
  if (data[i] === 0x22) i++;
  let n = 0;
  let digits = 0;
  for (let c = data[i]; c !== undefined && c >= 0x30 && c <= 0x39; c = data[++i]) {
    n = n * 10 + (c - 0x30);
    digits++;
  }
  return digits > 0 ? n : NaN;
}

/** The sequence number a generated clientId ends in (`reaction-7` -> 7), or NaN. */
export function clientSeq(id: string, end = id.length): number {
  let n = 0;
  let scale = 1;
  let i = end - 1;
  for (; i >= 0; i--) {
    const c = id.charCodeAt(i);
    if (c < 0x30 || c > 0x39) break;
    n += (c - 0x30) * scale;
    scale *= 10;
  }
  return i < end - 1 && id.charCodeAt(i) === 0x2d ? n : NaN;
}

/** The clientId's sequence number in a form body (`...&clientId=reaction-7&...`), or NaN; no string is made. */
export function clientSeqInBody(body: string | undefined): number {
  if (body === undefined) return NaN;
  const at = body.indexOf('clientId=');
  if (at < 0 || (at > 0 && body.charCodeAt(at - 1) !== 0x26)) return NaN;
  const amp = body.indexOf('&', at);
  return clientSeq(body, amp < 0 ? body.length : amp);
}
