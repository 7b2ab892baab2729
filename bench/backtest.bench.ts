/**
 * Tick-replay benchmark on the real BTCUSDT recording (../shared/data, 2024-08-08/09, ~11 minutes:
 * depth diffs, trades and the REST snapshot). Every event goes through the bus, the local book
 * (six-step sync), the matching engine's replayed liquidity, the strategy host, the risk gate and
 * SimVenue. Measured:
 *  - with orders: the periodic-orders plugin places a LIMIT order every 20 events (and cancels the
 *    oldest beyond 10 open), each checked by the risk checker and matched by the engine;
 *  - with no orders: the same plugin configured never to place;
 *  - end to end from the gzip files (streaming read, parse, replay, report) with peak RSS and the
 *    heap sampled along the way, to show memory stays flat.
 * Events are pre-parsed for the first two (parse cost is in the end-to-end line). The issue names
 * no npm peer for this benchmark, so it reports absolute rates against the goals.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { prepareRun } from '../src/backtest/Backtest.js';
import { parseBacktestConfig, type BacktestConfig } from '../src/backtest/config.js';
import { mergeByTime } from '../src/backtest/merge.js';
import { readRecording, type RecordedItem } from '../src/record/reader.js';
import { fmtRate, type BenchReport } from './report.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const DATA = path.resolve(root, '../shared/data');
const FILES = ['binance_spot_btcusdt_20240808.gz', 'binance_spot_btcusdt_20240809.gz'].map((f) => path.join(DATA, f));
const REPS = Number(process.env.BENCH_REPS ?? 5);

function config(every: number): BacktestConfig {
  return parseBacktestConfig(rawConfig(every), path.join(root, 'config', 'bench-replay.yaml'));
}

function rawConfig(every: number): Record<string, unknown> {
  return {
      mode: 'backtest',
      name: 'bench-replay',
      symbols: {
        BTC_USDT: {
          filters: [
            { filterType: 'PRICE_FILTER', minPrice: '0.01', maxPrice: '1000000', tickSize: '0.01' },
            { filterType: 'LOT_SIZE', minQty: '0.00001', maxQty: '9000', stepSize: '0.000001' },
            { filterType: 'NOTIONAL', minNotional: '5', maxNotional: '9000000', applyToMarket: true, avgPriceMins: 0 },
            { filterType: 'MAX_NUM_ORDERS', limit: 200 },
          ],
        },
      },
      strategies: [{ name: 'probe', plugin: 'periodic-orders', symbols: ['BTC_USDT'], budget: { USDT: '1000000', BTC: '10' }, params: { every, quantity: '0.001', offsetTicks: 0, maxOpen: 10 } }],
      backtest: { recordings: [{ symbol: 'BTC_USDT', files: FILES }], latency: { entryMs: 5, cancelMs: 5, ackMs: 2 }, fees: { makerBps: 1, takerBps: 7.5 }, balances: { USDT: '1000000', BTC: '10' }, equityIntervalMs: 1000 },
  };
}

/** Diffs, trades and the snapshot of the recording, merged and time-clamped, in memory. */
async function loadItems(): Promise<{ t: number; item: RecordedItem }[]> {
  const src = readRecording(FILES, { symbolOf: (w) => (w === 'BTCUSDT' ? 'BTC_USDT' : w), snapshotSymbol: 'BTCUSDT' });
  async function* noTickers(): AsyncGenerator<RecordedItem> {
    for await (const it of src) if (it.kind === 'snapshot' || it.event.type !== 'bookTicker') yield it;
  }
  const out: { t: number; item: RecordedItem }[] = [];
  for await (const x of mergeByTime([noTickers()], (it) => (it.kind === 'market' ? it.event.E : undefined), (it) => Math.floor(it.recvTime))) out.push(x);
  return out;
}

async function timed(items: readonly { t: number; item: RecordedItem }[], every: number): Promise<{ seconds: number; orders: number; trades: number }> {
  let best = Infinity;
  let orders = 0;
  let trades = 0;
  for (let r = 0; r < REPS; r++) {
    const run = await prepareRun(config(every));
    const t0 = process.hrtime.bigint();
    for (const { t, item } of items) run.step(t, item);
    const res = run.finish();
    const s = Number(process.hrtime.bigint() - t0) / 1e9;
    if (s < best) best = s;
    orders = res.strategies.probe?.orders ?? 0;
    trades = res.strategies.probe?.trades ?? 0;
  }
  return { seconds: best, orders, trades };
}

/** Streams the recording through runBacktest in a child process; returns its measurements. */
function endToEnd(): { seconds: number; fills: number; heap: number[]; maxRss: number } {
  const code = `
    const { runBacktest } = await import(${JSON.stringify(path.join(root, 'src/backtest/Backtest.ts'))});
    const { parseBacktestConfig } = await import(${JSON.stringify(path.join(root, 'src/backtest/config.ts'))});
    const cfg = parseBacktestConfig(JSON.parse(process.env.BENCH_CFG), process.env.BENCH_FILE);
    const heap = [];
    let n = 0;
    const t0 = process.hrtime.bigint();
    const r = await runBacktest(cfg, { writeOutput: false, onProgress: () => { if (++n % 2 === 0) { globalThis.gc(); heap.push(process.memoryUsage().heapUsed); } } });
    const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
    globalThis.gc();
    heap.push(process.memoryUsage().heapUsed);
    console.log(JSON.stringify({ seconds, fills: r.strategies.probe.trades, heap, maxRss: process.resourceUsage().maxRSS * 1024 }));
  `;
  const out = execFileSync(process.execPath, ['--expose-gc', '--import', 'tsx', '--input-type=module', '-e', code], {
    cwd: root,
    env: { ...process.env, BENCH_CFG: JSON.stringify(rawConfig(20)), BENCH_FILE: path.join(root, 'config', 'bench-replay.yaml') },
    encoding: 'utf8',
    maxBuffer: 1 << 24,
  });
  const last = out.trim().split('\n').pop() ?? '{}';
  const m = JSON.parse(last) as { seconds: number; fills: number; heap: number[]; maxRss: number };
  const pick = [0.2, 0.4, 0.6, 0.8, 1].map((f) => m.heap[Math.min(m.heap.length - 1, Math.max(0, Math.round(f * m.heap.length) - 1))] ?? 0);
  return { ...m, heap: pick };
}

/** Runs the benchmark. */
export async function run(): Promise<BenchReport> {
  const name = 'backtest: tick replay of the BTCUSDT recording';
  if (!FILES.every((f) => existsSync(f))) return { name, lines: [`skipped: ${DATA} not found (../shared/data is not available)`], ok: true };
  const items = await loadItems();
  const n = items.length;
  const withOrders = await timed(items, 20);
  const noOrders = await timed(items, 1e9);
  const rateOrders = n / withOrders.seconds;
  const rateNone = n / noOrders.seconds;

  // End to end, streaming from gzip, in a child process with --expose-gc so the heap samples
  // (after a full GC at each progress point) show retained memory, not garbage.
  const e2e = endToEnd();
  const lines = 6_495 + 19_904 + 73_174 + 1;
  const mb = (b: number) => `${(b / 1048576).toFixed(1)} MB`;
  const out = [
    `${n.toLocaleString('en-US')} events (depth diffs, trades, snapshot), best of ${REPS}`,
    `with orders (one every 20 events: ${withOrders.orders} orders, ${withOrders.trades} fills): ${fmtRate(rateOrders)} events (goal >= 500,000/s)`,
    `no orders: ${fmtRate(rateNone)} events (goal >= 1,000,000/s)`,
    `end to end from gzip (${lines.toLocaleString('en-US')} lines incl. bookTicker, read + parse + replay + metrics, one process): ${fmtRate(lines / e2e.seconds)} lines, ${e2e.fills} fills`,
    `retained heap after GC at 20/40/60/80/100 % of that streaming run: ${e2e.heap.map(mb).join(' / ')}; peak RSS ${mb(e2e.maxRss)}`,
  ];
  return { name, lines: out, ok: rateOrders >= 500_000 && rateNone >= 1_000_000 };
}
