/**
 * Runs every bench/*.bench.ts in sequence (one at a time, so they do not share cores), each in a
 * fresh Node process (bench/runOne.ts): a bench that runs after another must not pay for the
 * retained heap or the garbage the earlier one left (the risk checker measured ~1.4 M checks/s
 * after the matching bench in one process against ~2.2 M alone). Prints each report.
 * `npm run bench [-- name ...]` runs only the named benches.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import type { BenchReport } from './report.js';

const REPORT_TAG = '@@bench-report ';
const dir = path.dirname(fileURLToPath(import.meta.url));
const only = process.argv.slice(2);
const files = readdirSync(dir)
  .filter((f) => f.endsWith('.bench.ts'))
  .filter((f) => only.length === 0 || only.some((o) => f.startsWith(o)))
  .sort();

/** Runs one bench in a child process; its stderr (progress) passes through. */
function runIsolated(file: string): BenchReport {
  const out = spawnSync(process.execPath, ['--import', 'tsx', path.join(dir, 'runOne.ts'), path.join(dir, file)], { stdio: ['ignore', 'pipe', 'inherit'], encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  const line = out.stdout.split('\n').find((l) => l.startsWith(REPORT_TAG));
  if (out.status !== 0 || line === undefined) throw new Error(`exit ${String(out.status ?? out.signal)}\n${out.stdout.slice(-4000)}`);
  return JSON.parse(line.slice(REPORT_TAG.length)) as BenchReport;
}

let failed = 0;
for (const f of files) {
  const t0 = Date.now();
  try {
    const r = runIsolated(f);
    console.log(`\n== ${r.name} (${((Date.now() - t0) / 1000).toFixed(1)} s) ${r.ok ? 'OK' : 'NOT OK'}`);
    for (const l of r.lines) console.log(`   ${l}`);
    if (!r.ok) failed++;
  } catch (err) {
    failed++;
    console.log(`\n== ${f}: FAILED: ${err instanceof Error ? err.message : String(err)}`);
  }
}
console.log(`\n${files.length - failed} benches ok, ${failed} not ok`);
process.exitCode = failed > 0 ? 1 : 0;
