/**
 * Runs every bench/*.bench.ts in sequence (one at a time, so they do not share cores) and
 * prints each report. `npm run bench [-- name ...]` runs only the named benches.
 */
import { readdirSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import path from 'node:path';
import type { BenchReport } from './report.js';

const dir = path.dirname(fileURLToPath(import.meta.url));
const only = process.argv.slice(2);
const files = readdirSync(dir)
  .filter((f) => f.endsWith('.bench.ts'))
  .filter((f) => only.length === 0 || only.some((o) => f.startsWith(o)))
  .sort();

let failed = 0;
for (const f of files) {
  const mod = (await import(pathToFileURL(path.join(dir, f)).href)) as { run?: () => Promise<BenchReport> };
  if (typeof mod.run !== 'function') {
    console.log(`== ${f}: no run() export, skipped`);
    continue;
  }
  const t0 = Date.now();
  try {
    const r = await mod.run();
    console.log(`\n== ${r.name} (${((Date.now() - t0) / 1000).toFixed(1)} s) ${r.ok ? 'OK' : 'NOT OK'}`);
    for (const l of r.lines) console.log(`   ${l}`);
    if (!r.ok) failed++;
  } catch (err) {
    failed++;
    console.log(`\n== ${f}: FAILED: ${err instanceof Error ? err.stack : String(err)}`);
  }
}
console.log(`\n${files.length - failed} benches ok, ${failed} not ok`);
process.exitCode = failed > 0 ? 1 : 0;
