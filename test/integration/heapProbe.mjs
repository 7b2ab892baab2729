// Preloaded (`node --expose-gc --import`) into a `kancil backtest` child by backtest-memory.test.ts:
// collects garbage every 50 ms while the event loop turns (the replay yields between batches) and
// writes the largest live heap seen to the file KANCIL_HEAP_PROBE names when the process exits.
import { writeFileSync } from 'node:fs';
import process from 'node:process';
import { setInterval } from 'node:timers';
import { getHeapStatistics } from 'node:v8';

const file = process.env.KANCIL_HEAP_PROBE;
let max = 0;
if (file && typeof globalThis.gc === 'function') {
  const gc = globalThis.gc;
  setInterval(() => {
    gc();
    max = Math.max(max, getHeapStatistics().used_heap_size);
  }, 50).unref();
  process.on('exit', () => writeFileSync(file, String(max)));
}
