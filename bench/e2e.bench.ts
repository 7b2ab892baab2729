/**
 * End to end: `kancil backtest` as a user runs it (a fresh process per run, compiled CLI, a
 * recording file to result.json and report.html) over recordings 1x, 4x and a day long, built from
 * the shared BTCUSDT recording by bench/e2e/dayRecording.ts (shifted copies, ids and times
 * continuous), in text (gzip) and binary (.krb, converted by `kancil record import`) form. The
 * example market maker trades throughout. Reports wall and CPU seconds, recorded lines per second
 * (every line of the file: book tickers included, though skipped unread), replayed bus events per
 * second, peak RSS, and the load average; the fixed start-up is a run over a recording of a few
 * hundred lines (beside Node's own start-up in this environment, e2e/startupFloor.ts), and
 * `kancil --version` through npx against node_modules/.bin/kancil in a project that depends on
 * kancil (npm's own start-up, which README says how to avoid).
 *
 * Goals (judged on CPU seconds, which the shared machine's load disturbs least; wall is printed
 * beside it): binary >= 1M lines/s, text >= 200k lines/s at day size; start-up <= 0.3 s; peak RSS
 * <= 250 MB at day size. Generated files are kept in $KANCIL_E2E_DIR (default: the OS temp
 * folder) and reused. The shared recordings are looked for in ../shared/data, or
 * $KANCIL_SHARED_DATA; without them the bench skips, saying so.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { type Source, SOURCE_FILES, lineCount, loadSource, writeCopies } from './e2e/dayRecording.js';
import { type ProcessUsage, medianRun, repoRoot, runKancil } from './e2e/spawnRun.js';
import { launcherTimes } from './e2e/launchers.js';
import { startupFloorLines } from './e2e/startupFloor.js';
import { fmtRate, type BenchReport } from './report.js';

const GOAL_BINARY = 1_000_000;
const GOAL_TEXT = 200_000;
const GOAL_STARTUP_S = 0.3;
const GOAL_RSS_MB = 250;
const DAY_MS = 86_400_000;

const dataDir = process.env.KANCIL_SHARED_DATA ?? path.resolve(repoRoot, '../shared/data');
const workDir = process.env.KANCIL_E2E_DIR ?? path.join(tmpdir(), 'kancil-e2e');

const load = (): string => loadavg().map((l) => l.toFixed(2)).join(' ');

/** A backtest config over `file` with the example market maker (config/market-maker.yaml's parameters). */
function configFor(file: string, name: string): string {
  const cfg = path.join(workDir, `${name}.yaml`);
  writeFileSync(
    cfg,
    `mode: backtest
name: e2e-${name}
symbols:
  BTC_USDT:
    filters:
      - { filterType: PRICE_FILTER, minPrice: "0.01", maxPrice: "1000000", tickSize: "0.01" }
      - { filterType: LOT_SIZE, minQty: "0.00001", maxQty: "9000", stepSize: "0.000001" }
      - { filterType: NOTIONAL, minNotional: "5", maxNotional: "9000000", applyToMarket: true, avgPriceMins: 5 }
      - { filterType: MAX_NUM_ORDERS, limit: 200 }
strategies:
  - name: mm
    plugin: market-maker
    symbols: [BTC_USDT]
    budget: { USDT: "10000", BTC: "0" }
    params: { spreadBps: 2, skewBps: 1, stepSize: "0.00001", quantity: "0.002", maxPosition: "0.01", minQuantity: "0.0001", tickSize: "0.01", refreshMs: 200, requoteTicks: 50 }
backtest:
  recordings:
    - symbol: BTC_USDT
      files: [${JSON.stringify(file)}]
  latency: { entryMs: 20, cancelMs: 20, ackMs: 10 }
  fees: { makerBps: 0, takerBps: 7.5 }
  equityIntervalMs: 1000
`,
  );
  return cfg;
}

/** The text and binary recordings of `copies` copies (made once, then reused). */
async function recordings(src: Source, copies: number, tag: string): Promise<{ text: string; binary: string }> {
  const text = path.join(workDir, `${tag}.rec.gz`);
  const binary = path.join(workDir, `${tag}.krb`);
  if (!existsSync(text)) {
    process.stderr.write(`e2e: writing ${text} (${copies} copies)\n`);
    await writeCopies(src, copies, text);
  }
  if (!existsSync(binary)) {
    process.stderr.write(`e2e: converting to ${binary}\n`);
    runKancil(['record', 'import', '--from', 'recording', '--to', 'binary', '--out', binary, '--source', 'bench/e2e', '--licence', 'MIT, (c) 2022 nkaz001 (hftbacktest)', text]);
  }
  return { text, binary };
}

interface Row {
  readonly label: string;
  readonly lines: number;
  readonly runs: ProcessUsage[];
}

function eventsOf(u: ProcessUsage): number {
  const m = /, (\d+) bus events,/.exec(u.stdout);
  return m ? Number(m[1]) : NaN;
}

function backtest(cfg: string, n: number): ProcessUsage[] {
  const out = path.join(workDir, 'out');
  const runs: ProcessUsage[] = [];
  for (let i = 0; i < n; i++) runs.push(runKancil(['backtest', cfg, '--quiet', '--out', out]));
  return runs;
}

function rowText(r: Row): string {
  const m = medianRun(r.runs);
  const ev = eventsOf(m);
  return `${r.label.padEnd(14)} ${String(r.lines).padStart(10)} lines  wall ${m.wallS.toFixed(2).padStart(6)} s  CPU ${m.cpuS.toFixed(2).padStart(6)} s  ${fmtRate(r.lines / m.cpuS).padStart(12)} lines per CPU s (${fmtRate(r.lines / m.wallS)} wall)  ${fmtRate(ev / m.cpuS)} events per CPU s  peak RSS ${m.peakRssMiB.toFixed(0)} MiB  (median of ${r.runs.length})`;
}

/** Runs the benchmark. */
export async function run(): Promise<BenchReport> {
  const name = 'end to end: kancil backtest, recording file to report';
  if (!SOURCE_FILES.every((f) => existsSync(path.join(dataDir, f)))) {
    return { name, ok: true, lines: [`skipped: the shared recordings (${SOURCE_FILES.join(', ')}) are not in ${dataDir} (set KANCIL_SHARED_DATA to their folder)`] };
  }
  mkdirSync(workDir, { recursive: true });
  // The CLI as installed: `npm ci` builds dist/; a checkout may be behind its sources.
  const build = spawnSync('npm', ['run', 'build'], { cwd: repoRoot, encoding: 'utf8' });
  if (build.status !== 0) throw new Error(`npm run build failed:\n${build.stdout}${build.stderr}`);
  const lines: string[] = [`load average before: ${load()}`];
  // A reused recording's SHA-256 comes from the digest cache; a recording's first run hashes it.
  lines.push(`input digests: ${process.env.KANCIL_CACHE_DIR === 'none' ? 'computed by every run (KANCIL_CACHE_DIR=none)' : 'reused across runs from the digest cache (src/backtest/digestCache.ts); KANCIL_CACHE_DIR=none hashes every run'}`);

  const src = loadSource(dataDir);
  const dayCopies = Math.ceil(DAY_MS / src.spanMs);
  const sizes = [
    { tag: 'x1', copies: 1, runs: 3 },
    { tag: 'x4', copies: 4, runs: 3 },
    { tag: `day${dayCopies}`, copies: dayCopies, runs: 1 },
  ];
  const rows: Row[] = [];
  const made = new Map<string, { text: string; binary: string }>();
  for (const s of sizes) made.set(s.tag, await recordings(src, s.copies, s.tag));
  // Start-up: the first few hundred lines (snapshot included) of the recording.
  const tinyText = path.join(workDir, 'tiny.rec');
  if (!existsSync(tinyText)) {
    const { readLines } = await import('../src/record/line-reader.js');
    const keep: string[] = [];
    for await (const l of readLines(path.join(workDir, 'x1.rec.gz'))) {
      keep.push(l);
      if (keep.length >= 400) break;
    }
    writeFileSync(tinyText, `${keep.join('\n')}\n`);
  }
  const tinyCfg = configFor(tinyText, 'tiny');
  const startup = medianRun(backtest(tinyCfg, 5));
  lines.push(`start-up (a backtest of 400 lines): wall ${startup.wallS.toFixed(3)} s, CPU ${startup.cpuS.toFixed(3)} s, peak RSS ${startup.peakRssMiB.toFixed(0)} MiB`);
  lines.push(...startupFloorLines(['backtest', tinyCfg, '--quiet', '--out', path.join(workDir, 'out')], 5));
  lines.push(launcherTimes(workDir));
  for (const s of sizes) {
    const files = made.get(s.tag) as { text: string; binary: string };
    const n = lineCount(src, s.copies);
    for (const [form, file] of [
      ['text', files.text],
      ['binary', files.binary],
    ] as const) {
      const row: Row = { label: `${form} ${s.tag}`, lines: n, runs: backtest(configFor(file, `${s.tag}-${form}`), s.runs) };
      rows.push(row);
      lines.push(rowText(row));
    }
  }
  lines.push(`load average after: ${load()}`);

  const day = (form: string): ProcessUsage => medianRun((rows.find((r) => r.label === `${form} day${dayCopies}`) as Row).runs);
  const dayLines = lineCount(src, dayCopies);
  const checks = [
    { what: 'binary lines per CPU s at day size', ok: dayLines / day('binary').cpuS >= GOAL_BINARY, goal: `>= ${fmtRate(GOAL_BINARY)}` },
    { what: 'text lines per CPU s at day size', ok: dayLines / day('text').cpuS >= GOAL_TEXT, goal: `>= ${fmtRate(GOAL_TEXT)}` },
    { what: 'start-up CPU', ok: startup.cpuS <= GOAL_STARTUP_S, goal: `<= ${GOAL_STARTUP_S} s` },
    { what: 'peak RSS at day size (text and binary)', ok: Math.max(day('text').peakRssMiB, day('binary').peakRssMiB) * 1.048576 <= GOAL_RSS_MB, goal: `<= ${GOAL_RSS_MB} MB` },
  ];
  for (const c of checks) lines.push(`${c.ok ? 'goal met' : 'GOAL MISSED'}: ${c.what} ${c.goal}`);
  return { name, ok: checks.every((c) => c.ok), lines };
}
