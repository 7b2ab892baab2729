/**
 * Candle-mode benchmark: SMA(10/50) crossover, long only, market orders filled at the next bar's
 * open with a fixed 10 bps fee (a buy's in the base asset, a sell's in the quote asset, as the
 * engine charges it; the exit sells the position, net of that fee), over the one-month 1m BTCUSDT kline file repeated (shifted in time)
 * to about a million bars. Ours runs the full candle path: the bus, the strategy host, the
 * pipeline's gate, the sma-crossover plugin (trading-signals SMA), the candle venue and the result
 * collector. Both sides get pre-parsed bars, built before their timer and dropped after it:
 * grademark numbers in a data-forge DataFrame, ours the CSV reader's own KlineEvents (the objects a
 * real run gets), time-shifted copies sharing the exact decimals parsed once per distinct bar of
 * the month. The CSV parse rate is reported on its own line.
 * `grademark` runs the same bars and rules in the same process; trade lists must match first.
 *
 * Timing: BENCH_REPS (default 3) alternated repetitions, ours then grademark, so a busy spell of a
 * shared machine hits both sides; each side's best wall time and least CPU time (process.cpuUsage:
 * every thread of the process, GC included) count, and the goal is checked on the CPU ratio.
 * Every repetition's trade list and net PnL must match grademark's of the same repetition, and our
 * result JSON must be identical across repetitions, before any rate counts. Each side's bars are
 * built per repetition before its timer and dropped after it, so neither side's timed runs mark
 * the other's input in their major collections (about 10-20 ms of collector pauses per run).
 * Latest figures and where the time goes: docs/performance.md.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { readFileSync } from 'node:fs';
import { DataFrame } from 'data-forge';
import { backtest, type IBar, type IStrategy } from 'grademark';
import { SMA } from 'trading-signals';
import { prepareRun } from '../src/backtest/Backtest.js';
import { parseBacktestConfig } from '../src/backtest/config.js';
import { parseKlineCsvLine, shiftedCsvKline } from '../src/backtest/klineCsv.js';
import type { BacktestResult } from '../src/backtest/ResultCollector.js';
import type { KlineEvent } from '../src/core/marketEvents.js';
import { fmtRate, fmtRatio, type BenchReport } from './report.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const FILE = path.resolve(root, '../shared/data/binance_spot_btcusdt_1m_2024-08.csv.gz');
const TARGET_BARS = 1_000_000;
const FEE_BPS = 10;
const QTY = '0.1';
const REPS = Number(process.env.BENCH_REPS ?? 3);

interface Trade {
  entryTime: number;
  entryPrice: number;
  exitTime: number | undefined;
  exitPrice: number | undefined;
}

interface Bar extends IBar {
  fast?: number;
  slow?: number;
}

/** The month parsed once (exact decimals materialised) and its number of repetitions. */
function loadMonth(): { lines: string[]; month: KlineEvent[]; reps: number } {
  const lines = gunzipSync(readFileSync(FILE)).toString('utf8').split('\n').filter((l) => l.length > 0);
  const month = lines.map((l) => parseKlineCsvLine(l, 'BTC_USDT', '1m') as KlineEvent);
  for (const k of month) void [k.open, k.high, k.low, k.close, k.volume, k.quoteVolume, k.takerBuyBaseVolume, k.takerBuyQuoteVolume];
  return { lines, month, reps: Math.ceil(TARGET_BARS / month.length) };
}

/** Our input: the month's bars repeated, each copy shifted by the month's span. */
function klinesOf(month: readonly KlineEvent[], reps: number): KlineEvent[] {
  const span = month.length * 60_000;
  const bars: KlineEvent[] = [];
  for (let r = 0; r < reps; r++) for (const k of month) bars.push(shiftedCsvKline(k, r * span));
  return bars;
}

/** grademark's input: the month's bars as numbers, repeated and shifted like ours. */
function barsOf(month: readonly KlineEvent[], reps: number): Bar[] {
  const span = month.length * 60_000;
  const bars: Bar[] = [];
  for (let r = 0; r < reps; r++) {
    for (const k of month) bars.push({ time: new Date(k.openTime + r * span), open: k.open.toNumber(), high: k.high.toNumber(), low: k.low.toNumber(), close: k.close.toNumber(), volume: k.volume.toNumber() });
  }
  return bars;
}

/** Wall and CPU seconds of one timed region (CPU: the whole process, GC threads included). */
interface Timing {
  wall: number;
  cpu: number;
}

function startTiming(): () => Timing {
  const c0 = process.cpuUsage();
  const t0 = process.hrtime.bigint();
  return () => {
    const wall = Number(process.hrtime.bigint() - t0) / 1e9;
    const c = process.cpuUsage(c0);
    return { wall, cpu: (c.user + c.system) / 1e6 };
  };
}

/** Our run, on bars built before its timer (as grademark's are) and dropped when it returns. */
async function runOurs(month: readonly KlineEvent[], reps: number): Promise<{ result: BacktestResult } & Timing> {
  const bars = klinesOf(month, reps);
  const cfg = parseBacktestConfig(
    {
      mode: 'backtest',
      name: 'bench-candles',
      strategies: [{ name: 'sma', plugin: 'sma-crossover', symbols: ['BTC_USDT'], budget: { USDT: '1000000' }, params: { fast: 10, slow: 50, kind: 'SMA', interval: '1m', quantity: QTY } }],
      backtest: { candles: [{ symbol: 'BTC_USDT', interval: '1m', files: [FILE] }], fees: { makerBps: FEE_BPS, takerBps: FEE_BPS }, equityIntervalMs: 3_600_000 },
    },
    path.join(root, 'config', 'bench-candles.yaml'),
  );
  const run = await prepareRun(cfg);
  const stop = startTiming();
  for (const k of bars) run.step(k.E, { kind: 'market', recvTime: k.E, stream: undefined, event: k });
  const result = run.finish();
  return { result, ...stop() };
}

/**
 * grademark's run. Its million bars (two million objects with their Dates) are built here, before
 * its timer, and dropped after, rather than kept for the whole benchmark: live, they would be
 * marked by every major garbage collection of our timed runs too, charging grademark's input to
 * our side.
 */
function runGrademark(month: readonly KlineEvent[], reps: number): { trades: Trade[] } & Timing {
  const bars = barsOf(month, reps);
  const strategy: IStrategy<Bar, Bar> = {
    // Same indicator library and values as the plugin.
    prepIndicators: ({ inputSeries }) => {
      const fast = new SMA(10);
      const slow = new SMA(50);
      return inputSeries.select((b) => {
        const f = fast.update(b.close, false);
        const s = slow.update(b.close, false);
        return f === null || s === null ? { ...b } : { ...b, fast: f, slow: s };
      });
    },
    entryRule: (enter, { bar }) => {
      if (bar.fast !== undefined && bar.slow !== undefined && bar.fast > bar.slow) enter();
    },
    exitRule: (exit, { bar }) => {
      if (bar.fast !== undefined && bar.slow !== undefined && bar.fast < bar.slow) exit();
    },
  };
  const df = new DataFrame<number, Bar>(bars);
  const stop = startTiming();
  const raw = backtest(strategy, df);
  const timing = stop();
  const trades = raw.map((t) => ({
    entryTime: t.entryTime.getTime(),
    entryPrice: t.entryPrice,
    exitTime: t.exitReason === 'finalize' ? undefined : t.exitTime.getTime(),
    exitPrice: t.exitReason === 'finalize' ? undefined : t.exitPrice,
  }));
  return { trades, ...timing };
}

/** Round trips from our fills (a final open position has no exit). */
function ourTrades(r: BacktestResult): Trade[] {
  const out: Trade[] = [];
  let open: Trade | undefined;
  for (const f of r.fills) {
    if (f.side === 'BUY') open = { entryTime: f.t, entryPrice: Number(f.price), exitTime: undefined, exitPrice: undefined };
    else if (open) {
      out.push({ ...open, exitTime: f.t, exitPrice: Number(f.price) });
      open = undefined;
    }
  }
  if (open) out.push(open);
  return out;
}

/** Our trades and net PnL next to grademark's, and whether they agree. */
function disagreement(r: BacktestResult, g: readonly Trade[]): { ours: Trade[]; same: boolean; mismatch: number; ourNet: number; gNet: number; pnlOk: boolean } {
  const ours = ourTrades(r);
  const mismatch = ours.findIndex((t, i) => JSON.stringify(t) !== JSON.stringify(g[i]));
  const same = ours.length === g.length && mismatch < 0;
  // Net PnL with the fixed fee computed from grademark's trades equals ours (in decimals). The fee
  // is charged as the engine and the exchange charge it, in the asset received: the buy's in
  // base, so a round trip buys q for q x entry and sells what it holds, q x (1 - fee), for
  // q x (1 - fee) x exit less the quote fee on that: q x (1 - fee)^2 x exit - q x entry.
  const q = Number(QTY);
  const keep = 1 - FEE_BPS / 10_000;
  let gNet = 0;
  for (const t of g) if (t.exitPrice !== undefined) gNet += q * keep * keep * t.exitPrice - q * t.entryPrice;
  const sma = r.strategies.sma;
  // A final open trade has paid only its entry fee (q x fee in base, valued at the entry price).
  const ourNet = Number(sma?.realizedPnl ?? NaN) - Number(sma?.fees ?? NaN) + (ours.at(-1)?.exitTime === undefined ? (ours.at(-1)!.entryPrice * q * FEE_BPS) / 10_000 : 0);
  const pnlOk = Math.abs(ourNet - gNet) <= 1e-6 * Math.max(1, Math.abs(gNet));
  return { ours, same, mismatch, ourNet, gNet, pnlOk };
}

/** Runs the benchmark. */
export async function run(): Promise<BenchReport> {
  const name = 'candles: SMA(10/50) crossover vs grademark';
  if (!existsSync(FILE)) return { name, lines: [`skipped: ${FILE} not found (../shared/data is not available)`], ok: true };
  const { lines, month, reps } = loadMonth();
  const nBars = month.length * reps;
  const tp = process.hrtime.bigint();
  for (const l of lines) parseKlineCsvLine(l, 'BTC_USDT', '1m')?.close.toNumber();
  const parseRate = lines.length / (Number(process.hrtime.bigint() - tp) / 1e9);
  // Alternated repetitions (ours, grademark, ours, ...) so a busy spell of a shared machine hits
  // both sides; best wall time and least CPU time of each side count. Every repetition's trade
  // list and PnL are checked against grademark's of the same repetition before any time counts.
  const best = { ours: { wall: Infinity, cpu: Infinity }, peer: { wall: Infinity, cpu: Infinity } };
  let check: ReturnType<typeof disagreement> | undefined;
  let gTrades: Trade[] = [];
  let allAgree = true;
  let firstResult: string | undefined;
  let deterministic = true;
  for (let rep = 0; rep < REPS; rep++) {
    const o = await runOurs(month, reps);
    const g = runGrademark(month, reps);
    const c = disagreement(o.result, g.trades);
    const json = JSON.stringify(o.result);
    if (firstResult === undefined) firstResult = json;
    else if (json !== firstResult) deterministic = false;
    if (!(c.same && c.pnlOk)) allAgree = false;
    if (check === undefined || !(c.same && c.pnlOk)) {
      check = c;
      gTrades = g.trades;
    }
    best.ours.wall = Math.min(best.ours.wall, o.wall);
    best.ours.cpu = Math.min(best.ours.cpu, o.cpu);
    best.peer.wall = Math.min(best.peer.wall, g.wall);
    best.peer.cpu = Math.min(best.peer.cpu, g.cpu);
  }
  const { ours, same, mismatch, ourNet, gNet, pnlOk } = check as ReturnType<typeof disagreement>;
  const rate = (seconds: number) => nBars / seconds;
  const cpuRatio = rate(best.ours.cpu) / rate(best.peer.cpu);
  const out = [
    `${nBars.toLocaleString('en-US')} bars (the August 2024 month x ${reps}), ${ours.length} trades; ${REPS} alternated repetitions of each side`,
    `trade lists ${same ? 'match' : `DIFFER (ours ${ours.length}, grademark ${gTrades.length}, first difference at #${mismatch}: ours ${JSON.stringify(ours[mismatch])} grademark ${JSON.stringify(gTrades[mismatch])})`}${allAgree ? ' in every repetition' : ''}; our result JSON ${deterministic ? 'identical' : 'DIFFERS'} across repetitions`,
    `net PnL of closed trades with ${FEE_BPS} bps fee: ours ${ourNet.toFixed(6)}, from grademark's trades ${gNet.toFixed(6)} (${pnlOk ? 'equal' : 'DIFFERENT'})`,
    `kancil candle mode (bus + host + pipeline + plugin + venue + metrics): ${fmtRate(rate(best.ours.wall))} bars (best ${best.ours.wall.toFixed(2)} s wall), ${fmtRate(rate(best.ours.cpu))} bars per CPU second (${best.ours.cpu.toFixed(2)} s)`,
    `kline CSV parsing alone (line to KlineEvent, close read): ${fmtRate(parseRate)} bars`,
    `grademark 0.3.0 (pre-parsed bars): ${fmtRate(rate(best.peer.wall))} bars (best ${best.peer.wall.toFixed(2)} s wall), ${fmtRate(rate(best.peer.cpu))} bars per CPU second (${best.peer.cpu.toFixed(2)} s)`,
    `ratio ${fmtRatio(rate(best.ours.wall), rate(best.peer.wall))} wall, ${cpuRatio.toFixed(2)}x CPU (goal >= 5x)`,
  ];
  return { name, lines: out, ok: allAgree && deterministic && cpuRatio >= 5 };
}
