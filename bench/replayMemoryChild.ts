/**
 * The sandbox side of bench/replay-memory.bench.ts: replays one recording as fast as it can be
 * read (the config caps speed at 1000x; the bench lifts the cap on the resolved config) for at most
 * the given seconds, sampling RSS, and prints one JSON line of what it measured.
 */
import { startSandbox } from '../src/sandbox/index.js';
import { testSandboxConfig } from '../src/sandbox/test-config.js';

const [file, secondsText] = process.argv.slice(2);
if (file === undefined) throw new Error('usage: replayMemoryChild.ts <recording> [seconds]');
const limitMs = Number(secondsText ?? 60) * 1000;
const cfg = testSandboxConfig((d) => {
  d.market = [{ symbol: 'BTC_USDT', replay: { file, sourceSymbol: 'BTCUSDT', loop: false, speed: 1000 } }];
});
for (const m of cfg.market) if (m.kind === 'replay') (m as { speed: number }).speed = 1e9;
let peak = 0;
/** RSS (MiB) and hours of recording played, every 5 s: flat when memory is bounded. */
const trend: [number, number][] = [];
let first: number | undefined;
let ticks = 0;
const sample = (): void => {
  const rss = process.memoryUsage().rss;
  peak = Math.max(peak, rss);
  const at = sbx.feeds[0]?.replayedTo;
  first ??= at;
  if (++ticks % 25 === 0 && at !== undefined && first !== undefined) trend.push([Math.round(rss / 2 ** 20), Number(((at - first) / 3_600_000).toFixed(2))]);
};
const t0 = performance.now();
const sbx = await startSandbox(cfg);
const openMs = performance.now() - t0;
const sampler = setInterval(sample, 200);
const feed = sbx.feeds[0];
const ended = await Promise.race([sbx.marketEnded?.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), limitMs))]);
sample();
clearInterval(sampler);
const out = { openMs, wallMs: performance.now() - t0, ended, applied: feed?.applied ?? 0, failed: feed?.failed ?? 0, lastError: feed?.lastError ?? null, firstMs: first ?? null, trend, replayedTo: feed?.replayedTo ?? null, peakRss: peak };
await sbx.stop();
process.stdout.write(`${JSON.stringify(out)}\n`);
