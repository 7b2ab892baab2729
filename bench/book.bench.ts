/**
 * Order book benchmark: apply the real BTCUSDT snapshot and every diff after it, reading best
 * bid/ask after each message, with kancil's BookSync (six-step checks, scaled integers) and with
 * ccxt's OrderBook (the WebSocket order book ccxt pro uses) on the same pre-parsed input.
 * Before timing, a verification pass checks that both books' top 20 levels agree every 1,000
 * messages. ccxt runs twice: capped at the snapshot's 1,000 levels a side (limit() after each
 * message, as ccxt pro's watchOrderBook does; the goal is judged against this one) and uncapped
 * (its sides grow with every far level the diffs add, where its array inserts cost most); the
 * levels each book holds at the end are printed. JSON parse cost is reported separately. Without ../shared/data the bundled sample
 * in backtest-data/ is used.
 */
import { existsSync } from 'node:fs';
import { loadavg } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ccxt from 'ccxt';
import { BookSync, type DiffInput } from '../src/exchange/book/book-sync.js';
import { pow10 } from '../src/exchange/book/scaled.js';
import { SNAPSHOT_SUFFIX } from '../src/record/format.js';
import { readLines } from '../src/record/line-reader.js';
import { type BenchReport, fmtRate, fmtRatio } from './report.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

interface WireSnapshot {
  lastUpdateId: number;
  bids: string[][];
  asks: string[][];
}
interface WireDiff {
  E: number;
  U: number;
  u: number;
  b: string[][];
  a: string[][];
}

/** The ccxt order book surface used here. */
interface CcxtSide extends Array<[number, number]> {
  store(price: number, size: number): void;
}
interface CcxtBook {
  bids: CcxtSide;
  asks: CcxtSide;
  nonce: number | undefined;
  /** Cuts both sides to the book's depth (ccxt pro does so on every update it returns). */
  limit(): void;
}

/** The depth of the snapshot: what a capped ccxt book keeps, as ccxt pro's watchOrderBook(limit) would. */
const DEPTH = 1000;

async function loadInput(): Promise<{ source: string; rawLines: string[]; snapshot: WireSnapshot; diffs: WireDiff[] }> {
  const shared = path.resolve(repoRoot, '../shared/data');
  const files = existsSync(path.join(shared, 'binance_spot_btcusdt_20240808.gz'))
    ? [path.join(shared, 'binance_spot_btcusdt_20240808.gz'), path.join(shared, 'binance_spot_btcusdt_20240809.gz')]
    : [path.join(repoRoot, 'backtest-data/btcusdt-sample.ndjson.gz')];
  const rawLines: string[] = [];
  let snapshot: WireSnapshot | undefined;
  const before: WireDiff[] = [];
  for (const f of files) {
    for await (const line of readLines(f)) {
      if (line.startsWith('#') || line.length === 0) continue;
      const json = line.slice(line.indexOf(' ') + 1);
      const doc = JSON.parse(json) as { stream?: string; data?: unknown; lastUpdateId?: number };
      if (doc.stream === undefined || doc.stream.endsWith(SNAPSHOT_SUFFIX)) {
        snapshot ??= (doc.stream === undefined ? doc : doc.data) as WireSnapshot;
        rawLines.push(json);
      } else if (doc.stream.includes('@depth')) {
        before.push(doc.data as WireDiff);
        rawLines.push(json);
      }
    }
  }
  if (snapshot === undefined) throw new Error('no snapshot in the input');
  const L = snapshot.lastUpdateId;
  return { source: files.map((f) => path.basename(f)).join(' + '), rawLines, snapshot, diffs: before.filter((d) => d.u > L) };
}

function runKancil(snapshot: WireSnapshot, diffs: readonly WireDiff[], onMessage?: (i: number, sync: BookSync) => void): number {
  const sync = new BookSync('BTCUSDT', { requestSnapshot: () => undefined, onStatus: () => undefined });
  let check = 0;
  const input: DiffInput = { U: 0, u: 0, E: 0, bids: [], asks: [] };
  const mutable = input as { U: number; u: number; E: number; bids: string[][]; asks: string[][] };
  sync.onDiff({ U: diffs[0]?.U ?? 0, u: diffs[0]?.u ?? 0, E: 0, bids: diffs[0]?.b ?? [], asks: diffs[0]?.a ?? [] });
  sync.onSnapshot(snapshot, 0);
  const book = sync.book;
  check += book.bestBidScaled() + book.bestAskScaled();
  for (let i = 1; i < diffs.length; i++) {
    const d = diffs[i] as WireDiff;
    mutable.U = d.U;
    mutable.u = d.u;
    mutable.E = d.E;
    mutable.bids = d.b;
    mutable.asks = d.a;
    sync.onDiff(input);
    check += book.bestBidScaled() + book.bids.qtyAt(0) + book.bestAskScaled() + book.asks.qtyAt(0);
    onMessage?.(i, sync);
  }
  if (!book.ready) throw new Error('kancil book not ready at the end');
  return check;
}

function runCcxt(make: (s: unknown) => CcxtBook, snapshot: WireSnapshot, diffs: readonly WireDiff[], onMessage?: (i: number, ob: CcxtBook) => void, capped = false): number {
  const toF = (l: string[][]): number[][] => l.map((x) => [parseFloat(x[0] as string), parseFloat(x[1] as string)]);
  const ob = make({ bids: toF(snapshot.bids), asks: toF(snapshot.asks), nonce: snapshot.lastUpdateId });
  let check = 0;
  for (let i = 0; i < diffs.length; i++) {
    const d = diffs[i] as WireDiff;
    for (const [p, q] of d.b) ob.bids.store(parseFloat(p as string), parseFloat(q as string));
    for (const [p, q] of d.a) ob.asks.store(parseFloat(p as string), parseFloat(q as string));
    ob.nonce = d.u;
    if (capped) ob.limit();
    const b = ob.bids[0];
    const a = ob.asks[0];
    if (b && a) check += b[0] + b[1] + a[0] + a[1];
    if (i > 0) onMessage?.(i, ob);
  }
  return check;
}

/** Runs the benchmark. */
export async function run(): Promise<BenchReport> {
  const lines: string[] = [];
  const { source, rawLines, snapshot, diffs } = await loadInput();
  const exchange = new ccxt.pro.binance();
  const make = (s: unknown): CcxtBook => exchange.orderBook(s as Record<string, unknown>) as unknown as CcxtBook;
  const makeCapped = (s: unknown): CcxtBook => exchange.orderBook(s as Record<string, unknown>, DEPTH) as unknown as CcxtBook;
  lines.push(`load average: ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
  lines.push(`input: ${source}: snapshot lastUpdateId ${snapshot.lastUpdateId} (${snapshot.bids.length}+${snapshot.asks.length} levels) and ${diffs.length} diffs after it`);

  // Verification pass (untimed): top 20 levels agree every 1,000 messages and at the end.
  const ours: string[] = [];
  const theirs: string[] = [];
  const top20 = (sync: BookSync): string => {
    const b = sync.book;
    const ps = pow10(b.priceScale);
    const qs = pow10(b.qtyScale);
    const side = (s: typeof b.bids): string => Array.from({ length: Math.min(20, s.size) }, (_, i) => `${s.priceAt(i) / ps}@${s.qtyAt(i) / qs}`).join(',');
    return `${side(b.bids)}|${side(b.asks)}`;
  };
  const last = diffs.length - 1;
  runKancil(snapshot, diffs, (i, sync) => {
    if (i % 1000 === 0 || i === last) ours.push(top20(sync));
  });
  const ccxtTop20 = (ob: CcxtBook): string => `${ob.bids.slice(0, 20).map((l) => `${l[0]}@${l[1]}`).join(',')}|${ob.asks.slice(0, 20).map((l) => `${l[0]}@${l[1]}`).join(',')}`;
  runCcxt(make, snapshot, diffs, (i, ob) => {
    if (i % 1000 === 0 || i === last) theirs.push(ccxtTop20(ob));
  });
  const capped: string[] = [];
  runCcxt(
    makeCapped,
    snapshot,
    diffs,
    (i, ob) => {
      if (i % 1000 === 0 || i === last) capped.push(ccxtTop20(ob));
    },
    true,
  );
  // How deep each book ends: kancil keeps every level the diffs leave (as ccxt does uncapped).
  let depthK = '';
  runKancil(snapshot, diffs, (i, sync) => {
    if (i === last) depthK = `${sync.book.bids.size}+${sync.book.asks.size}`;
  });
  let depthC = '';
  runCcxt(make, snapshot, diffs, (i, ob) => {
    if (i === last) depthC = `${ob.bids.length}+${ob.asks.length}`;
  });
  lines.push(`levels at the end: kancil ${depthK}, ccxt uncapped ${depthC}, ccxt capped ${DEPTH}+${DEPTH}`);
  const mismatch = ours.findIndex((s, i) => s !== theirs[i]);
  const agree = mismatch < 0 && ours.length === theirs.length && ours.length > 0 && capped.every((c, i) => c === ours[i]) && capped.length === ours.length;
  lines.push(`top-20 agreement at ${ours.length} checkpoints: ${agree ? 'all equal' : `MISMATCH at checkpoint ${mismatch}`}`);

  // Timed passes, alternating to share machine noise; each pass rebuilds the book from the snapshot.
  const passes = Math.max(3, Math.ceil(60_000 / Math.max(1, diffs.length)));
  let tK = Infinity;
  let tC = Infinity;
  let tCap = Infinity;
  let sink = 0;
  for (let r = 0; r < 5; r++) {
    let t0 = process.hrtime.bigint();
    for (let p = 0; p < passes; p++) sink += runKancil(snapshot, diffs);
    tK = Math.min(tK, Number(process.hrtime.bigint() - t0) / 1e9);
    t0 = process.hrtime.bigint();
    for (let p = 0; p < passes; p++) sink += runCcxt(make, snapshot, diffs);
    tC = Math.min(tC, Number(process.hrtime.bigint() - t0) / 1e9);
    t0 = process.hrtime.bigint();
    for (let p = 0; p < passes; p++) sink += runCcxt(makeCapped, snapshot, diffs, undefined, true);
    tCap = Math.min(tCap, Number(process.hrtime.bigint() - t0) / 1e9);
  }
  const msgs = passes * diffs.length;
  const rK = msgs / tK;
  const rC = msgs / tC;
  const rCap = msgs / tCap;
  lines.push(`kancil BookSync (scaled ints, sequence checks): ${fmtRate(rK)} msgs`);
  lines.push(`ccxt ${ccxt.version} OrderBook capped at ${DEPTH} levels (limit() per message): ${fmtRate(rCap)} msgs`);
  lines.push(`ccxt ${ccxt.version} OrderBook uncapped: ${fmtRate(rC)} msgs`);
  lines.push(`ratio kancil/ccxt capped: ${fmtRatio(rK, rCap)} (goal >= 3x); kancil/ccxt uncapped: ${fmtRatio(rK, rC)}`);

  // JSON parse cost of the same messages (both books need it; reported apart).
  let tJ = Infinity;
  for (let r = 0; r < 3; r++) {
    const t0 = process.hrtime.bigint();
    for (const l of rawLines) sink += (JSON.parse(l) as { length?: number }).length ?? 1;
    tJ = Math.min(tJ, Number(process.hrtime.bigint() - t0) / 1e9);
  }
  const bytes = rawLines.reduce((a, l) => a + l.length, 0);
  lines.push(`JSON.parse of the ${rawLines.length} depth lines (${(bytes / 1e6).toFixed(1)} MB): ${fmtRate(rawLines.length / tJ)} msgs, ${((tJ / rawLines.length) * 1e6).toFixed(2)} µs/msg`);
  if (!Number.isFinite(sink)) lines.push('(checksum not finite)');
  return { name: 'book', lines, ok: agree && rK >= 3 * rCap };
}
