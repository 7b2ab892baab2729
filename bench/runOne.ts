/**
 * Runs one bench file in this process and prints its report as one JSON line prefixed with
 * REPORT_TAG (bench/run.ts starts one such process per bench, so no bench measures the heap,
 * JIT state or GC debt another one left behind).
 */
import { pathToFileURL } from 'node:url';
import type { BenchReport } from './report.js';

/** Marks the line of stdout that carries the report (bench/run.ts looks for it). */
const REPORT_TAG = '@@bench-report ';

const file = process.argv[2];
if (file === undefined) {
  console.error('usage: node --import tsx bench/runOne.ts <file.bench.ts>');
  process.exit(2);
}
const mod = (await import(pathToFileURL(file).href)) as { run?: () => Promise<BenchReport> };
if (typeof mod.run !== 'function') {
  console.error(`${file}: no run() export`);
  process.exit(3);
}
const report = await mod.run();
process.stdout.write(`\n${REPORT_TAG}${JSON.stringify(report)}\n`);
