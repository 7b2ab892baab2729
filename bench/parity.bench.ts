/**
 * Parity of the three modes: each example strategy (market maker, grid, trade fader, SMA crossover) run live (twice,
 * to measure how far two live runs of the same market differ) and on paper against the sandbox
 * replaying a BTCUSDT recording in real time, and as a backtest of the same window with the order
 * latency the live run measured (bench/parityRuns.ts). Prints every mode's orders, filled quantity,
 * taker share, fees and PnL (at one mark) and their gaps to the first live run; the goal is 10 % on
 * each, judged against the live-vs-live row.
 *
 * The recording: the 11-minute BTCUSDT one of ../shared/data when present (120 s hold too few fills
 * to decide 10 %: two live runs of the market maker differ by ~17 % in filled quantity there), else
 * the bundled 120 s sample, saying why. `PARITY_RECORDING=bundled` forces the sample,
 * `PARITY_SPEED` (default 1) replays faster, `PARITY_CASES=mm,grid` picks strategies, and
 * `PARITY_DUMP=dir` writes every run's orders, fills and latencies there as JSON (to study a gap
 * offline: `runParityBacktest` repeats the backtest with other latencies).
 *
 * The candle strategy (sma-crossover, `PARITY_CASES=sma`) reads one-minute bars, which the sandbox
 * builds on the recording's clock as the backtest does (src/core/bars.ts): it needs the 11-minute
 * recording (the bundled one holds a single whole minute).
 * `npm run parity` runs this alone.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { PROJECT_ROOT } from '../src/strategy/loader.js';
import { GOAL, parityTable, type ParityResult } from './parityResults.js';
import { CASES, RECORDING, runParityCase } from './parityRuns.js';
import type { BenchReport } from './report.js';

const SHARED = ['binance_spot_btcusdt_20240808.gz', 'binance_spot_btcusdt_20240809.gz'].map((f) => path.join(PROJECT_ROOT, '../shared/data', f));

/** The recording to replay and what to say about it; a temporary file is removed by `done`. */
function recording(): { file: string; note: string; done: () => void } {
  const bundled = { file: RECORDING, done: () => undefined };
  if (process.env.PARITY_RECORDING === 'bundled') return { ...bundled, note: 'the bundled 120 s recording (PARITY_RECORDING=bundled)' };
  const missing = SHARED.find((f) => !existsSync(f));
  if (missing !== undefined) return { ...bundled, note: `the bundled 120 s recording: ${missing} is absent, so the 11-minute one is skipped (too few fills to decide 10 %)` };
  // The two files are one recording split at midnight: the sandbox replays one file.
  const dir = mkdtempSync(path.join(tmpdir(), 'kancil-parity-rec-'));
  const file = path.join(dir, 'btcusdt-20240808-09.ndjson');
  writeFileSync(file, Buffer.concat(SHARED.map((f) => gunzipSync(readFileSync(f)))));
  return { file, note: 'the 11-minute BTCUSDT recording of ../shared/data', done: () => rmSync(dir, { recursive: true, force: true }) };
}

export async function run(): Promise<BenchReport> {
  const speed = Number(process.env.PARITY_SPEED ?? 1);
  const pick = process.env.PARITY_CASES?.split(',');
  const rec = recording();
  const results: ParityResult[] = [];
  try {
    for (const c of CASES.filter((x) => pick === undefined || pick.includes(x.name))) {
      results.push(await runParityCase(c, { speed, durationSec: 0, recording: rec.file, liveTwice: true, log: (l) => process.stderr.write(`${l}\n`) }));
    }
  } finally {
    rec.done();
  }
  const { lines, met } = parityTable(results);
  return {
    name: `parity: live, paper and backtest over ${rec.note} (speed ${speed}; goal: every gap within ${GOAL * 100} % of live)`,
    lines: [...lines, met ? 'every gap within the goal' : 'some gaps exceed the goal, or intents that must be identical differ (see the table and src/backtest/README.md, "Parity")'],
    ok: met,
  };
}
