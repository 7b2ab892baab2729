/**
 * A day-long recording replayed by the sandbox from disk (no npm peer; absolute figures against
 * the goal of 300 MB RSS). The shared BTCUSDT recording (../shared/data, 0808 + 0809, ~11 minutes)
 * is repeated with its times, update ids and trade ids shifted to make 24 hours of plain text
 * (~1.9 GB, 3.5 M lines; built once into the temp folder), far past the ~3.6 h a whole-file load
 * could hold in one string. A child process replays it as fast as it reads; `REPLAY_SECONDS`
 * bounds the run (default 60; 0: the whole day), and the report says how much of the day played.
 */
import { spawnSync } from 'node:child_process';
import { createWriteStream, existsSync, readFileSync, renameSync, statSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import type { BenchReport } from './report.js';

const dir = path.dirname(fileURLToPath(import.meta.url));
const shared = path.resolve(dir, '../../shared/data');
const SOURCES = ['binance_spot_btcusdt_20240808.gz', 'binance_spot_btcusdt_20240809.gz'].map((f) => path.join(shared, f));
const DAY_MS = 86_400_000;
const GOAL_RSS_MB = 300;

/** The recording's lines without bookTicker (the replay skips it), in file order. */
function sourceLines(): string[] {
  return SOURCES.flatMap((f) => gunzipSync(readFileSync(f)).toString('utf8').split('\n')).filter((l) => l !== '' && !l.includes('@bookTicker'));
}

/** Writes 24 hours of recording: copies of the source shifted by its span, ids kept increasing. */
async function buildDay(file: string): Promise<void> {
  const lines = sourceLines();
  const ms = (l: string): number => Number(l.slice(0, 13));
  const span = Math.ceil((ms(lines[lines.length - 1] as string) - ms(lines[0] as string) + 1000) / 1000) * 1000;
  const snapshotAt = lines.findIndex((l) => !l.includes('"stream"'));
  const snapshotId = Number(/"lastUpdateId":(\d+)/.exec(lines[snapshotAt] as string)?.[1]);
  const lastU = Math.max(...lines.map((l) => Number(/"u":(\d+)/.exec(l)?.[1] ?? 0)));
  const ids = lines.map((l) => Number(/"t":(\d+)/.exec(l)?.[1] ?? NaN)).filter((x) => Number.isFinite(x));
  const tradeSpan = Math.max(...ids) - Math.min(...ids) + 1;
  const copies = Math.ceil(DAY_MS / span);
  const tmp = `${file}.part`;
  const out = createWriteStream(tmp);
  for (let k = 0; k < copies; k++) {
    const shift = k * span;
    let chunk = '';
    for (let i = 0; i < lines.length; i++) {
      const l = lines[i] as string;
      if (i === snapshotAt) {
        if (k === 0) chunk += `${l}\n`;
        continue;
      }
      const u = Number(/"u":(\d+)/.exec(l)?.[1] ?? NaN);
      if (k > 0 && u <= snapshotId) continue;
      const shifted = l
        .replace(/"([ET])":(\d+)/g, (_m, key: string, v: string) => `"${key}":${Number(v) + shift}`)
        .replace(/"([Uu])":(\d+)/g, (_m, key: string, v: string) => `"${key}":${Number(v) + k * (lastU - snapshotId)}`)
        .replace(/"t":(\d+)/, (_m, v: string) => `"t":${Number(v) + k * tradeSpan}`);
      chunk += `${String(ms(l) + shift)}${l.slice(13, l.indexOf(' '))}${shifted.slice(shifted.indexOf(' '))}\n`;
    }
    if (!out.write(chunk)) await new Promise<void>((r) => out.once('drain', () => r()));
  }
  await new Promise<void>((resolve, reject) => out.end((e?: Error | null) => (e ? reject(e) : resolve())));
  renameSync(tmp, file);
}

/** Builds the day (once) and replays it in a child process. */
export async function run(): Promise<BenchReport> {
  if (!SOURCES.every((f) => existsSync(f))) return { name: 'replay-memory', lines: [`skipped: ${shared} (the shared BTCUSDT recording) is absent`], ok: true };
  const file = path.join(tmpdir(), 'kancil-bench-day-btcusdt.rec');
  const t0 = performance.now();
  if (!existsSync(file)) await buildDay(file);
  const built = performance.now() - t0;
  const seconds = Number(process.env.REPLAY_SECONDS ?? 60);
  const child = spawnSync(process.execPath, ['--import', 'tsx', path.join(dir, 'replayMemoryChild.ts'), file, String(seconds > 0 ? seconds : 86_400)], { encoding: 'utf8', maxBuffer: 1024 * 1024 });
  const line = child.stdout.trim().split('\n').at(-1) ?? '';
  if (child.status !== 0 || !line.startsWith('{')) return { name: 'replay-memory', lines: [`child failed (${String(child.status)}): ${child.stderr.slice(-2000)}`], ok: false };
  const r = JSON.parse(line) as { openMs: number; wallMs: number; ended: boolean; applied: number; failed: number; lastError: string | null; firstMs: number | null; replayedTo: number | null; peakRss: number; trend: [number, number][] };
  const mb = r.peakRss / 2 ** 20;
  const hours = r.replayedTo !== null && r.firstMs !== null ? (r.replayedTo - r.firstMs) / 3_600_000 : 0;
  const ok = mb <= GOAL_RSS_MB && r.failed === 0;
  return {
    name: 'replay-memory',
    lines: [
      `recording: ${(statSync(file).size / 2 ** 30).toFixed(2)} GiB of text, 24 h of BTCUSDT depth and trades (${built > 1000 ? `built in ${(built / 1000).toFixed(1)} s` : 'built earlier'}; ${file})`,
      `sandbox start-up with it: ${r.openMs.toFixed(0)} ms; replayed ${hours.toFixed(2)} h of recording (${r.applied.toLocaleString('en-US')} messages, ${r.failed} refused) in ${(r.wallMs / 1000).toFixed(1)} s${r.ended ? ', the whole day' : `, stopped at the ${seconds} s bound`}`,
      `RSS MiB at hours played, every 5 s: ${r.trend.map(([m, h]) => `${m}@${h}`).join(' ')}`,
      `${ok ? 'OK  ' : 'MISS'} peak RSS ${mb.toFixed(0)} MiB (goal <= ${GOAL_RSS_MB}); load average ${loadavg().map((x) => x.toFixed(2)).join(' ')}; ${new Date().toISOString().slice(0, 10)}`,
    ],
    ok,
  };
}
