// Preloaded into each process the end-to-end bench starts (`node --import`): writes the process's
// own resource usage (CPU, peak RSS in KiB) to the file KANCIL_BENCH_USAGE names when it exits, so
// the bench needs no external timing tool.
import { writeFileSync } from 'node:fs';
import process from 'node:process';

const file = process.env.KANCIL_BENCH_USAGE;
if (file) process.on('exit', () => writeFileSync(file, JSON.stringify(process.resourceUsage())));
