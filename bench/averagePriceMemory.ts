/**
 * Memory held and add() time of the average-price window for a 5-minute window at 1,000 trades/s
 * (~300k trades held), the integer form against the decimal.js reference. One form per process:
 *   node --expose-gc --import tsx bench/averagePriceMemory.ts new|ref
 * Prints heap used after GC (and ArrayBuffer bytes: typed-array storage lives outside the heap)
 * above an empty window, and the mean add() time over 3 x 300k trades once the window is full
 * (the first pass of a cold process measures the compiler more than the window), with the
 * collections those adds caused and their total pause.
 */
import { PerformanceObserver } from 'node:perf_hooks';
import { AveragePriceWindow } from '../src/core/averagePrice.js';
import { Decimal } from '../src/core/decimal.js';
import { AveragePriceWindowReference } from '../src/core/reference/averagePriceReference.js';

const form = process.argv[2] ?? 'new';
const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) throw new Error('run with node --expose-gc');
const MINS = 5;
const RATE = 1000;
const HELD = MINS * 60 * RATE;

/** Exchange-like inputs (prices of 2 decimals, quantities of 5), reused so they are not counted as held. */
let seed = 7;
const rnd = (): number => {
  seed = (seed * 1103515245 + 12345) % 2 ** 31;
  return seed / 2 ** 31;
};
const POOL = 4096;
const prices = Array.from({ length: POOL }, () => new Decimal((60_000 + Math.floor(rnd() * 100_000) / 100).toFixed(2)));
const qtys = Array.from({ length: POOL }, () => new Decimal((Math.floor(rnd() * 200_000) / 1e5 + 0.00001).toFixed(5)));

function measure(): { heap: number; buffers: number } {
  gc?.();
  gc?.();
  const m = process.memoryUsage();
  return { heap: m.heapUsed, buffers: m.arrayBuffers };
}

const before = measure();
const w = form === 'ref' ? new AveragePriceWindowReference([MINS]) : new AveragePriceWindow([MINS]);
let t = 1_700_000_000_000;
const feed = (n: number): void => {
  for (let i = 0; i < n; i++) {
    t += 1000 / RATE;
    w.add(t, prices[i % POOL] as Decimal, qtys[(i * 7) % POOL] as Decimal);
  }
};
feed(HELD);
const REPS = 3;
let gcs = 0;
let gcMs = 0;
const obs = new PerformanceObserver((list) => {
  for (const e of list.getEntries()) {
    gcs++;
    gcMs += e.duration;
  }
});
obs.observe({ entryTypes: ['gc'] });
const t0 = process.hrtime.bigint();
for (let r = 0; r < REPS; r++) feed(HELD);
const ns = Number(process.hrtime.bigint() - t0) / (REPS * HELD);
const avg = w.average(MINS, t)?.toString();
// GC entries arrive asynchronously: read them after the loop's have been delivered.
await new Promise((resolve) => setTimeout(resolve, 50));
obs.disconnect();
const after = measure();
const mb = (b: number): string => `${b < 0 ? '' : '+'}${(b / 1e6).toFixed(1)}`;
console.log(`${form}: held ${w.size} trades; heap ${mb(after.heap - before.heap)} MB, ArrayBuffers ${mb(after.buffers - before.buffers)} MB; add ${ns.toFixed(0)} ns/trade, ${gcs} GCs pausing ${gcMs.toFixed(0)} ms; avg ${avg ?? '-'}`);
