/**
 * Builds long recordings for the end-to-end bench from the shared BTCUSDT recording (../shared/data,
 * 10 min 50 s): copy 0 is the recording itself (converted to the kancil text format), each further
 * copy follows it in time with every receive time, event time, update id and trade id shifted so
 * they continue the copy before, as if the market had gone on. A copy starts with one depth diff
 * (the next update id) that turns the book left by the copy before back into the recording's
 * snapshot, so the book stays synchronised, never crossed, without a gap or a new snapshot; the
 * copy's first diff after the snapshot is spliced to follow it. The text is templated once (every
 * number to shift found by position), so a copy costs string joins, not JSON.
 */
import { once } from 'node:events';
import { createWriteStream, existsSync, readFileSync, renameSync } from 'node:fs';
import { gunzipSync, constants as zc, createGzip } from 'node:zlib';

/** The shared recording the copies are made of, in order. */
export const SOURCE_FILES = ['binance_spot_btcusdt_20240808.gz', 'binance_spot_btcusdt_20240809.gz'];

const FIELD = /"(E|T|U|u|t|lastUpdateId)":(\d+)/g;

/** One line as its pieces between the numbers a copy shifts. */
interface Template {
  readonly pieces: string[];
  /** What each number is: 'E' | 'T' (ms), 'U' | 'u' | 'lastUpdateId' (update ids), 't' (trade id). */
  readonly kinds: string[];
  readonly values: number[];
  readonly recvNs: bigint;
  readonly kind: 'diff' | 'snapshot' | 'other';
  /** Last update id of a diff. */
  readonly u: number;
}

/** The parsed source: templates and what the copies need. */
export interface Source {
  readonly lines: readonly Template[];
  /** Update id of the snapshot. */
  readonly snapshotId: number;
  readonly lastUpdateId: number;
  readonly firstTradeId: number;
  readonly lastTradeId: number;
  /** ms from the first to the last receive time. */
  readonly spanMs: number;
  /** Bids and asks of the diff that turns the end-of-recording book into the snapshot's. */
  readonly reset: { bids: [string, string][]; asks: [string, string][] };
  /** Data lines of one copy after the first (no snapshot, no diffs it covers, plus the reset diff). */
  readonly linesPerCopy: number;
}

type Side = Map<string, string>;

function applyLevels(side: Side, levels: [string, string][]): void {
  for (const [p, q] of levels) {
    if (Number(q) === 0) side.delete(p);
    else side.set(p, q);
  }
}

/** The levels that turn `from` into `to`: every price of `to` at its quantity, the others at zero. */
function resetLevels(from: Side, to: Side, zero: string): [string, string][] {
  const out: [string, string][] = [...to.entries()];
  for (const p of from.keys()) if (!to.has(p)) out.push([p, zero]);
  return out;
}

/** Reads and templates the shared recording (`<recv ns> <json>` lines). */
export function loadSource(dataDir: string): Source {
  const lines: Template[] = [];
  const bids: Side = new Map();
  const asks: Side = new Map();
  const snapBids: Side = new Map();
  const snapAsks: Side = new Map();
  let snapshotId = -1;
  let lastUpdateId = -1;
  let firstTradeId = -1;
  let lastTradeId = -1;
  for (const f of SOURCE_FILES) {
    for (const line of gunzipSync(readFileSync(`${dataDir}/${f}`)).toString('utf8').split('\n')) {
      const sp = line.indexOf(' ');
      if (sp <= 0) continue;
      const json = line.slice(sp + 1);
      const doc = JSON.parse(json) as { stream?: string; data?: Record<string, unknown>; lastUpdateId?: number; bids?: [string, string][]; asks?: [string, string][] };
      let kind: Template['kind'] = 'other';
      let u = -1;
      // The bare snapshot line gets the envelope the kancil format writes.
      const text = doc.stream === undefined ? `{"stream":"btcusdt@depthSnapshot","data":${json}}` : json;
      if (doc.stream === undefined) {
        kind = 'snapshot';
        snapshotId = doc.lastUpdateId as number;
        applyLevels((bids.clear(), bids), doc.bids ?? []);
        applyLevels((asks.clear(), asks), doc.asks ?? []);
        for (const [p, q] of bids) snapBids.set(p, q);
        for (const [p, q] of asks) snapAsks.set(p, q);
      } else if (doc.data?.e === 'depthUpdate') {
        kind = 'diff';
        u = doc.data.u as number;
        lastUpdateId = u;
        if (snapshotId >= 0 && u > snapshotId) {
          applyLevels(bids, doc.data.b as [string, string][]);
          applyLevels(asks, doc.data.a as [string, string][]);
        }
      } else if (doc.data?.e === 'trade') {
        const t = doc.data.t as number;
        if (firstTradeId < 0) firstTradeId = t;
        lastTradeId = t;
      }
      const pieces: string[] = [];
      const kinds: string[] = [];
      const values: number[] = [];
      let at = 0;
      for (const m of text.matchAll(FIELD)) {
        const numAt = (m.index as number) + m[0].length - (m[2] as string).length;
        pieces.push(text.slice(at, numAt));
        kinds.push(m[1] as string);
        values.push(Number(m[2]));
        at = numAt + (m[2] as string).length;
      }
      pieces.push(text.slice(at));
      lines.push({ pieces, kinds, values, recvNs: BigInt(line.slice(0, sp)), kind, u });
    }
  }
  if (snapshotId < 0 || firstTradeId < 0) throw new Error(`${dataDir}: no snapshot or no trade in ${SOURCE_FILES.join(', ')}`);
  const first = lines[0] as Template;
  const last = lines[lines.length - 1] as Template;
  const zero = '0.00000000';
  const reset = { bids: resetLevels(bids, snapBids, zero), asks: resetLevels(asks, snapAsks, zero) };
  const linesPerCopy = lines.filter((l) => l.kind === 'other' || (l.kind === 'diff' && l.u > snapshotId)).length + 1;
  return { lines, snapshotId, lastUpdateId, firstTradeId, lastTradeId, spanMs: Number((last.recvNs - first.recvNs) / 1_000_000n) + 100, reset, linesPerCopy };
}

/** Data lines of a recording of `copies` copies. */
export function lineCount(src: Source, copies: number): number {
  return src.lines.length + (copies - 1) * src.linesPerCopy;
}

/** The text lines of copy `k` (k >= 1 drops the snapshot and the diffs it covers and starts with the reset diff). */
function* copyLines(src: Source, k: number): Generator<string> {
  const timeShift = k * src.spanMs;
  const timeShiftNs = BigInt(timeShift) * 1_000_000n;
  // Each copy after the first adds the reset diff's id and the ids after the snapshot.
  const idShift = k * (src.lastUpdateId - src.snapshotId + 1);
  const tradeShift = k * (src.lastTradeId - src.firstTradeId + 1);
  let bridged = k === 0;
  for (const l of src.lines) {
    if (k > 0 && (l.kind === 'snapshot' || (l.kind === 'diff' && l.u <= src.snapshotId))) continue;
    const recv = l.recvNs + timeShiftNs;
    let out = `${recv} ${l.pieces[0] as string}`;
    let E = 0;
    for (let i = 0; i < l.kinds.length; i++) {
      const kind = l.kinds[i] as string;
      let v = l.values[i] as number;
      if (kind === 'E' || kind === 'T') v += timeShift;
      else if (kind === 't') v += tradeShift;
      else v += idShift;
      if (kind === 'E') E = v;
      // The first diff after the reset follows it exactly (it bridged the snapshot in the recording).
      if (!bridged && l.kind === 'diff' && kind === 'U') v = src.snapshotId + idShift + 1;
      out += `${v}${l.pieces[i + 1] as string}`;
    }
    if (!bridged && l.kind === 'diff') {
      bridged = true;
      const id = src.snapshotId + idShift;
      yield `${recv} {"stream":"btcusdt@depth@100ms","data":{"e":"depthUpdate","E":${E},"s":"BTCUSDT","U":${id},"u":${id},"b":${JSON.stringify(src.reset.bids)},"a":${JSON.stringify(src.reset.asks)}}}`;
    }
    yield out;
  }
}

/** Writes a gzip text recording of `copies` copies to `file` (through a temporary name: a file that exists is complete). */
export async function writeCopies(src: Source, copies: number, file: string): Promise<void> {
  if (existsSync(file)) return;
  const tmp = `${file}.part`;
  const gz = createGzip({ level: zc.Z_BEST_SPEED });
  const out = createWriteStream(tmp);
  gz.pipe(out);
  const header = { format: 'kancil-recording', version: 1, source: `${copies} shifted copies of binance_spot_btcusdt_20240808/09 (bench/e2e)`, licence: 'MIT, (c) 2022 nkaz001 (hftbacktest, examples/spot)' };
  gz.write(`# ${JSON.stringify(header)}\n`);
  let buf = '';
  for (let k = 0; k < copies; k++) {
    for (const line of copyLines(src, k)) {
      buf += `${line}\n`;
      if (buf.length > 1 << 20) {
        if (!gz.write(buf)) await once(gz, 'drain');
        buf = '';
      }
    }
  }
  gz.end(buf);
  await once(out, 'finish');
  renameSync(tmp, file);
}
