/**
 * One backtest run from a validated config: recorded data replayed through the bus, the strategy
 * runner and its risk gate, with SimVenue over the matching engine (tick data) or the candle venue
 * (kline files), on a virtual clock. Returns the result; optionally writes result.json and
 * report.html. The same config and data always give byte-identical output.
 */
import { accessSync, constants, renameSync, statSync } from 'node:fs';
import path from 'node:path';
import { Bus } from '../bus/Bus.js';
import type { BusEvent } from '../bus/events.js';
import { VirtualClock } from '../core/clock.js';
import { Decimal } from '../core/decimal.js';
import { KlineInterval, type KlineIntervalName } from '../core/enums.js';
import { readRecording, readRecordingBatches, type ReadStats, type RecordedItem } from '../record/reader.js';
import { SKIPPABLE_EVENTS } from '../record/skipStreams.js';
import type { MarketEvent } from '../core/marketEvents.js';
import { ConfigError } from '../core/errors.js';
import type { MatchingEngine } from '../sim/engine.js';
import { timeBoundMs } from '../config/timeBound.js';
import { plainErrorAt } from '../strategy/loader.js';
import { codeVersion } from './codeVersion.js';
import { klineWarnings } from './klineWarnings.js';
import { WarmUp, shortWarmUpWarnings, warmUpMs } from './warmup.js';
import { runProvenance, strategiesAsRun } from './provenance.js';
import { klineSubscriptions } from '../strategy/klines.js';
import { silentLogger, type IntentGate, type StrategyRunner, type StrategySpec } from '../strategy/StrategyRunner.js';
import { readsTimer, type StrategyLogger, type StrategyPlugin } from '../strategy/types.js';
import type { BacktestConfig } from './config.js';
import { writeHtmlReport } from './htmlReport.js';
import { writeResultJson } from './resultStreams.js';
import { readKlineCsv } from './klineCsv.js';
import { mergeByTime, type Timed, type TimedBatch } from './merge.js';
import { Replay, type ReplayStats } from './Replay.js';
import { virtualTimeLog } from './runLog.js';
import { ChartSeries } from './chartSeries.js';
import type { BookTop } from './quoteTouch.js';
import { ResultCollector, type BacktestResult } from './ResultCollector.js';
import { VirtualScheduler } from '../venue/Scheduler.js';
import { receiveTimeBatches, type FeedTimeStats } from './feedTime.js';
import { twoClockBatches, type ClockedBatch, type StepClock } from './twoClocks.js';
import { assembleRun } from '../run/assemble.js';
import { backtestVenue, loadStrategies, runSymbols, venueRiskInputs, type BacktestVenue } from './backtestVenue.js';
import { makeFolder } from '../store/makeFolder.js';

export { BACKTEST_ACCOUNT, symbolInfoOf } from './backtestVenue.js';

/** Options of a run beyond the config. */
export interface RunOptions {
  /** Risk gate in front of the venue; default: the risk checker with the config's risk section (as live). */
  readonly gate?: IntentGate;
  /** Where strategies' `ctx.log` lines go (with the virtual time as `at`); default: nowhere. */
  readonly log?: StrategyLogger;
  /** Parameter overrides per strategy name (sweeps). */
  readonly paramOverrides?: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
  /**
   * Called every 10,000 replayed items and once at the end of the data, with the replay's counts
   * and the reads' (`read.bytes`: bytes of the recording and candle files read so far, as stored:
   * progress against their sizes).
   */
  readonly onProgress?: (stats: ReplayStats, read: ReadStats) => void;
  /** Plugins by reference, used instead of loading `strategies[].plugin` from disk (embedding, tests). */
  readonly plugins?: Readonly<Record<string, StrategyPlugin>>;
  /** Write result.json and report.html to the config's output folder (default true when it is set). */
  readonly writeOutput?: boolean;
  /**
   * Called once the run is built (its plugins imported), before any data is read. The CLI sets its
   * V8 flags there (cli/replayFlags.ts): V8 refuses a code cache once a flag has changed, and a
   * plugin's import may still compile one (the vendored trading-signals).
   */
  readonly onPrepared?: () => void;
}

/** Equity of a budget in quote terms at the start (non-quote assets count at 0 until marked: budgets should be quote). */
function budgetQuote(budget: Readonly<Record<string, Decimal>>, quote: string): Decimal {
  return budget[quote] ?? new Decimal(0);
}

/** A prepared run: feed it items in time order (`step`, or `replay.run`), then `finish`. */
export interface PreparedRun {
  /** Tick mode: the matching engine (listen to it to see what reached it and when); candle mode: undefined. */
  readonly engine: MatchingEngine | undefined;
  readonly replay: Replay;
  readonly runner: StrategyRunner;
  readonly bus: Bus;
  /** Market event types no strategy reads and the replay does without: pass them to {@link sourcesOf}. */
  readonly unread: ReadonlySet<MarketEvent['type']>;
  /** Replays one step of an item at time t on the clock it drives (default both; see twoClocks.ts). */
  step(t: number, item: RecordedItem, clock?: StepClock): void;
  /** Stops the strategies, delivers what is in flight and builds the result. */
  finish(): BacktestResult;
}

/** Runs a backtest over the config's files. */
export async function runBacktest(cfg: BacktestConfig, opts: RunOptions = {}): Promise<BacktestResult> {
  const run = await prepareRun(cfg, opts);
  opts.onPrepared?.();
  const read: ReadStats = { lines: 0, items: 0, malformed: 0 };
  const onProgress = opts.onProgress;
  await run.replay.runBatches(sourceBatchesOf(cfg, run.unread, read), onProgress && ((st) => onProgress(st, read)));
  onProgress?.(run.replay.stats, read);
  noEventsCheck(cfg, run.replay.stats, read, run.unread);
  const result = run.finish();
  if (cfg.backtest.output !== undefined && opts.writeOutput !== false) writeReports(cfg.backtest.output, result);
  return result;
}

/**
 * Builds everything a run needs (plugins loaded, nothing started) without reading any data yet:
 * the venue and the replay are what a backtest adds to the parts every run shares (assembleRun).
 */
export async function prepareRun(cfg: BacktestConfig, opts: RunOptions = {}): Promise<PreparedRun> {
  const bt = cfg.backtest;
  if (bt.candles.length > 0 && bt.recordings.length > 0) throw new RangeError(`${cfg.file}: backtest: use either recordings or candles, not both`);
  checkDataFiles(cfg);
  const { strategies, pluginFiles } = await loadStrategies(cfg, opts);
  const clock = new VirtualClock(0);
  const scheduler = new VirtualScheduler(clock);
  const log = opts.log === undefined ? silentLogger : virtualTimeLog(opts.log, () => clock.now());
  const bus = new Bus();
  const sim = backtestVenue(cfg, strategies, scheduler, bus);
  // Quote time at the touch needs a book: tick data only (candles have none, and pay nothing for it).
  const results = resultRecorders(cfg, strategies, (sym) => replay.mark(sym), cfg.backtest.candles.length > 0 ? undefined : (sym) => replay.top(sym));
  // backtest.warmup: while on, strategies hear the history before start, their intents are refused
  // and the results hear nothing (warmup.ts).
  const warm = new WarmUp(warmUpMs(cfg, strategies));
  // The replay is the market the strategies read and the driver of their runner: it flushes the
  // runner's rejections after each event and starts it when the run goes live (or warms up).
  const replay = backtestReplay(cfg, strategies, { bus, scheduler, sim, collector: results.collector, runner: () => run.runner, warm });
  const run = assembleRun({
    clock,
    bus,
    venue: sim.venue,
    market: replay,
    ownOrders: sim.kind === 'tick' ? (s) => sim.shown.orders(s) : 'strategies',
    symbols: runSymbols(cfg),
    strategies,
    risk: venueRiskInputs(cfg, sim, () => clock.now()),
    ...(opts.gate ? { gate: opts.gate } : {}),
    countDailyFills: dailyLossLimitSet(cfg, opts),
    observe: warm.unheard(results.observe),
    log,
    runner: {
      log,
      plot: warm.unheard((strategy, symbol, name, v, pane) => results.chart.plot(strategy, symbol, name, clock.now(), v, pane)),
      plotSink: (strategy, symbol, name) => {
        const put = results.chart.overlay(strategy, symbol, name);
        return warm.unheard((v: number) => put(clock.now(), v));
      },
      gate: (g) => warm.gate(g),
    },
  });
  const provenance = runProvenance(cfg, codeVersion(), strategiesAsRun(cfg, strategies, plainErrorAt(cfg.file)), pluginFiles);
  const finish = (): BacktestResult => {
    run.runner.stop();
    // replay.finish throws when the data ended before backtest.start: the pipeline, the venue's
    // engine subscription and the bus are released either way.
    try {
      replay.finish();
    } finally {
      run.stop();
      if (sim.kind === 'tick') sim.venue.dispose();
      bus.close();
    }
    return results.collector.finish(cfg.name, run.runner.failures, results.chart.finish(), provenance, [...klineWarnings(strategies, results.withKlines, cfg), ...warm.warnings(), ...shortWarmUpWarnings(cfg, strategies, warm.ms, replay.stats.firstTime)]);
  };
  const engine = sim.kind === 'tick' ? sim.engine : undefined;
  return { engine, replay, runner: run.runner, bus, unread: unreadEvents(strategies.map((s) => s.plugin)), step: (t, item, c) => replay.step(t, item, c), finish };
}

/**
 * Only the default gate's daily loss limit asks for the daily PnL, and DailyPnl holds the day's
 * fills until first asked (it folds them then): with no such limit configured they would stay
 * alive for the whole run (every fill event and its amounts promoted out of the young
 * generation, copied twice by its collector), and nobody would ever read them.
 */
function dailyLossLimitSet(cfg: BacktestConfig, opts: RunOptions): boolean {
  return opts.gate === undefined && [cfg.risk, ...cfg.strategies.map((s) => s.risk)].some((r) => r?.dailyLossLimit !== undefined);
}

/** What records a run's results from the bus: the collector, the chart, the symbols that had a kline. */
interface ResultRecorders {
  readonly collector: ResultCollector;
  readonly chart: ChartSeries;
  readonly withKlines: Set<string>;
  /** The bus observer that feeds them, called first for every event. */
  readonly observe: (e: BusEvent) => void;
}

function resultRecorders(cfg: BacktestConfig, strategies: readonly StrategySpec[], markOf: (symbol: string) => Decimal | undefined, topOf?: BookTop): ResultRecorders {
  const bt = cfg.backtest;
  // Sampled per bar by default on candles: a second's samples of minute bars repeat one value 60 times (and Sharpe "per second" of minute data means nothing).
  const equityMs = bt.equityIntervalMs ?? (bt.candles.length > 0 ? Math.min(...bt.candles.map((c) => KlineInterval[c.interval as KlineIntervalName])) : 1000);
  const chart = new ChartSeries(equityMs);
  // The collector marks through the replay's books; the replay samples the collector.
  const collector = new ResultCollector(
    strategies.map((s) => ({ name: s.name, symbols: s.symbols, initialEquity: budgetQuote(s.budget, quoteOf(s.symbols[0] ?? '')) })),
    equityMs,
    markOf,
    topOf,
  );
  // Symbols that had a kline on the bus: a kline strategy over data that gives none is said so, not left to end with no trade and exit 0.
  const withKlines = new Set<string>();
  // The symbol of the kline before, already in withKlines: no set read per bar.
  let klineSymbol: string | undefined;
  const observe = (e: BusEvent): void => {
    collector.onEvent(e);
    if (e.type === 'kline') {
      chart.kline(e);
      if (e.symbol !== klineSymbol) withKlines.add((klineSymbol = e.symbol));
    }
  };
  return { collector, chart, withKlines, observe };
}

/** The replay of a run over its venue, driving the strategy runner `runner()` gives once it exists. */
function backtestReplay(
  cfg: BacktestConfig,
  strategies: readonly StrategySpec[],
  p: { bus: Bus; scheduler: VirtualScheduler; sim: BacktestVenue; collector: ResultCollector; runner: () => StrategyRunner; warm: WarmUp },
): Replay {
  const bt = cfg.backtest;
  const { sim } = p;
  return new Replay({
    bus: p.bus,
    scheduler: p.scheduler,
    engine: sim.kind === 'tick' ? sim.engine : undefined,
    candleVenue: sim.kind === 'candle' ? sim.venue : undefined,
    bookSymbols: bt.recordings.map((r) => r.symbol),
    collector: p.collector,
    afterEvent: () => p.runner().flush(),
    ...(sim.kind === 'tick' ? { onDepth: (symbol: string) => sim.shown.flush(symbol) } : {}),
    // None scheduled when no strategy reads them: they would cost the scheduler and the bus for nothing.
    timerMs: strategies.some((s) => readsTimer(s.plugin)) ? bt.timerMs : 0,
    start: bt.start === undefined ? undefined : timeBoundMs(bt.start),
    startSource: { file: cfg.file, value: bt.start, warmup: bt.warmup },
    // Strategies get control when the replay goes live (the first item at or after backtest.start),
    // or at the warm-up's first item with their orders refused until then.
    onLive: () => {
      p.warm.on = false;
      p.runner().start();
    },
    ...p.warm.replayOptions(() => p.runner().start()),
    // Trade recordings: the bars the strategies read are built from the trades, as the sandbox's klines of a replay.
    ...(bt.candles.length > 0 ? {} : { bars: klineSubscriptions(strategies) }),
  });
}

/**
 * Checks that every data file of the config is a readable file, before anything runs: a missing one
 * would otherwise fail the replay when it is reached, after part of the run (and a merge of
 * several files would have delivered the others' items up to then).
 */
export function checkDataFiles(cfg: BacktestConfig): void {
  const errorAt = plainErrorAt(cfg.file);
  const kinds = [
    ['recordings', cfg.backtest.recordings],
    ['candles', cfg.backtest.candles],
  ] as const;
  for (const [kind, sources] of kinds) {
    for (const [i, src] of sources.entries()) {
      for (const [j, file] of src.files.entries()) {
        let why: string | undefined;
        try {
          const st = statSync(file);
          if (!st.isFile()) why = 'not a file';
          else accessSync(file, constants.R_OK);
        } catch (err) {
          why = (err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : `cannot read it (${(err as Error).message})`;
        }
        if (why !== undefined) throw errorAt(['backtest', kind, i, 'files', j], why, file);
      }
    }
  }
}

function quoteOf(symbol: string): string {
  return symbol.slice(symbol.indexOf('_') + 1);
}

/**
 * A run whose data gave no market event is refused rather than reported as an empty result: the
 * files are not what the config says (a wrong format, every line malformed, or the window misses them).
 */
function noEventsCheck(cfg: BacktestConfig, replayed: ReplayStats, read: ReadStats, skipped: ReadonlySet<MarketEvent['type']>): void {
  if (replayed.events > 0) return;
  const bt = cfg.backtest;
  const field = bt.recordings.length > 0 ? 'backtest.recordings' : 'backtest.candles';
  const files = [...bt.recordings.flatMap((r) => r.files), ...bt.candles.flatMap((c) => c.files)];
  const detail = bt.recordings.length > 0 ? `: ${read.lines} lines read, ${read.malformed} malformed, ${read.items} items` : '';
  const unread = skipped.size > 0 ? ` (lines of ${[...skipped].join(', ')} were left unread: no strategy reads them)` : '';
  throw new ConfigError(cfg.file, field, files, `no market event in the data${detail}${unread}; check the files' format (kancil record import writes valid recordings)${bt.end !== undefined ? ' and backtest.end' : ''}`);
}

/**
 * The skippable market event types (record/skipStreams) that none of `plugins` reads; none when
 * a plugin does not name the types it reads.
 */
export function unreadEvents(plugins: readonly StrategyPlugin[]): ReadonlySet<MarketEvent['type']> {
  const unread = new Set(SKIPPABLE_EVENTS);
  for (const p of plugins) {
    if (p.marketEvents === undefined) return new Set();
    for (const t of p.marketEvents) unread.delete(t);
  }
  return unread;
}

/**
 * The sources of a config, merged in replay-time order: with `backtest.feed.time` receive (the
 * default) each recorded item at its receive time on the exchange's clock (./feedTime.ts), with
 * exchange at its event time. Candles have no receive time: at their event time either way. Lines
 * of the `skip` event types are dropped unread; `stats` (optional) counts the recordings' lines;
 * `feedStats` (optional) reports the clock offsets estimated.
 */
export async function* sourcesOf(cfg: BacktestConfig, skip?: ReadonlySet<MarketEvent['type']>, stats?: ReadStats, feedStats?: FeedTimeStats): AsyncGenerator<Timed<RecordedItem> & { readonly clock?: StepClock }> {
  for await (const b of sourceBatchesOf(cfg, skip, stats, feedStats)) {
    const clocks = b.clocks;
    for (let i = 0; i < b.items.length; i++) yield { t: b.times[i] as number, item: b.items[i] as RecordedItem, clock: clocks?.[i] };
  }
}

/**
 * {@link sourcesOf} in batches, what a run replays (Replay.runBatches): one recording at receive
 * time (the usual case) costs an async step per read chunk, not several per item.
 */
export function sourceBatchesOf(cfg: BacktestConfig, skip?: ReadonlySet<MarketEvent['type']>, stats?: ReadStats, feedStats?: FeedTimeStats): AsyncIterable<ClockedBatch<RecordedItem>> {
  const bt = cfg.backtest;
  const wireToSymbol = new Map<string, string>();
  for (const s of Object.keys(cfg.symbols)) wireToSymbol.set(s.replace('_', ''), s);
  for (const r of bt.recordings) wireToSymbol.set(r.symbol.replace('_', ''), r.symbol);
  // A recording of a symbol the config does not name (its file mislabelled) is refused by name:
  // its events would reach a simulated exchange that does not list the symbol.
  const symbolOf = (wire: string): string => {
    const s = wireToSymbol.get(wire.toUpperCase());
    if (s === undefined) throw new ConfigError(cfg.file, 'backtest.recordings', bt.recordings.map((r) => r.symbol), `the data holds events of ${wire}, a symbol the config does not name: check each recording's symbol against its files`);
    return s;
  };
  const opts = (r: { symbol: string }) => ({ symbolOf, snapshotSymbol: r.symbol.replace('_', ''), skip, ...(stats ? { stats } : {}) });
  let merged: AsyncIterable<TimedBatch<RecordedItem>>;
  if (bt.feed.time === 'receive') {
    const feed = (r: BacktestConfig['backtest']['recordings'][number]) => receiveTimeBatches(readRecordingBatches(r.files, opts(r)), { windowMs: bt.feed.windowMs, offsetMs: bt.feed.offsetMs, stats: feedStats });
    const sources = [...bt.recordings.map(feed), ...bt.candles.map((c) => batched(atEventTime(klineItems(c.files, c.symbol, c.interval as KlineIntervalName, stats))))];
    // One source (the usual case) needs no merge, only the clamp that keeps its clock from going back.
    merged = sources.length === 1 ? nonDecreasing(sources[0] as AsyncIterable<TimedBatch<RecordedItem>>) : batched(unwrap(mergeByTime(sources.map(unbatch), (x) => x.t, (x) => x.t)));
  } else {
    merged = batched(
      mergeByTime(
        [...bt.recordings.map((r) => readRecording(r.files, opts(r))), ...bt.candles.map((c) => klineItems(c.files, c.symbol, c.interval as KlineIntervalName, stats))],
        (it) => (it.kind === 'market' ? it.event.E : undefined),
        (it) => Math.floor(it.recvTime),
      ),
    );
  }
  // Tick mode: the simulated exchange applies each item at its exchange time, the strategy hears it
  // at its replay time (twoClocks.ts). Candle mode keeps one clock.
  const split: AsyncIterable<ClockedBatch<RecordedItem>> = bt.recordings.length > 0 && bt.feed.maxExchangeLagMs > 0 ? twoClockBatches(merged, bt.feed.maxExchangeLagMs) : merged;
  return bt.end === undefined ? split : until(split, timeBoundMs(bt.end));
}

/** Candle items timed at their event time. */
async function* atEventTime(items: AsyncIterable<RecordedItem>): AsyncGenerator<Timed<RecordedItem>> {
  for await (const it of items) yield { t: it.kind === 'market' ? it.event.E : Math.floor(it.recvTime), item: it };
}

/** A source's batches with times clamped non-decreasing (in place), as mergeByTime does. */
async function* nonDecreasing(batches: AsyncIterable<TimedBatch<RecordedItem>>): AsyncGenerator<TimedBatch<RecordedItem>> {
  let last = -Infinity;
  for await (const b of batches) {
    const times = b.times;
    for (let i = 0; i < times.length; i++) {
      const t = times[i] as number;
      if (t < last) times[i] = last;
      else last = t;
    }
    yield b;
  }
}

/** Timed items of batches, one at a time (for the merge of several sources). */
async function* unbatch(batches: AsyncIterable<TimedBatch<RecordedItem>>): AsyncGenerator<Timed<RecordedItem>> {
  for await (const b of batches) for (let i = 0; i < b.items.length; i++) yield { t: b.times[i] as number, item: b.items[i] as RecordedItem };
}

/** Timed items gathered into batches (of up to 1,024). */
async function* batched(items: AsyncIterable<Timed<RecordedItem>>): AsyncGenerator<TimedBatch<RecordedItem>> {
  let b = { times: [] as number[], items: [] as RecordedItem[] };
  for await (const x of items) {
    b.times.push(x.t);
    b.items.push(x.item);
    if (b.items.length >= 1024) {
      yield b;
      b = { times: [], items: [] };
    }
  }
  if (b.items.length > 0) yield b;
}

/** The merged timed items with the merge's (per-source non-decreasing) time. */
async function* unwrap(merged: AsyncIterable<Timed<Timed<RecordedItem>>>): AsyncGenerator<Timed<RecordedItem>> {
  for await (const x of merged) yield { t: x.t, item: x.item.item };
}

/** The steps up to `end` (ms); stopping early closes the files. */
async function* until(batches: AsyncIterable<ClockedBatch<RecordedItem>>, end: number): AsyncGenerator<ClockedBatch<RecordedItem>> {
  for await (const b of batches) {
    const cut = b.times.findIndex((t) => t > end);
    if (cut < 0) {
      yield b;
      continue;
    }
    if (cut > 0) yield { times: b.times.slice(0, cut), items: b.items.slice(0, cut), ...(b.clocks ? { clocks: b.clocks.slice(0, cut) } : {}) };
    return;
  }
}

async function* klineItems(files: string[], symbol: string, interval: KlineIntervalName, count?: ReadStats): AsyncGenerator<RecordedItem> {
  for await (const k of readKlineCsv(files, symbol, interval, count)) yield { kind: 'market', recvTime: k.E, stream: undefined, event: k };
}

/**
 * Writes result.json and report.html into `dir`, each whole or not at all (written beside and
 * renamed): a run killed while writing never leaves a half file that --rerun or a reader would take.
 */
export function writeReports(dir: string, result: BacktestResult): { json: string; html: string } {
  makeFolder(dir);
  const json = path.join(dir, 'result.json');
  const html = path.join(dir, 'report.html');
  writeResultJson(`${json}.partial`, result);
  renameSync(`${json}.partial`, json);
  writeHtmlReport(`${html}.partial`, result);
  renameSync(`${html}.partial`, html);
  return { json, html };
}
