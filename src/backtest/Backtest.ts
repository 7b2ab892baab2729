/**
 * One backtest run from a validated config: recorded data replayed through the bus, the strategy
 * runner and its risk gate, with SimVenue over the matching engine (tick data) or the candle venue
 * (kline files), on a virtual clock. Returns the result; optionally writes result.json and
 * report.html. The same config and data always give byte-identical output.
 */
import { accessSync, constants, mkdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { Bus } from '../bus/Bus.js';
import { VirtualClock } from '../core/clock.js';
import { Decimal } from '../core/decimal.js';
import { parseExchangeFilters, parseSymbolFilters, type WireFilter } from '../core/filters.js';
import { KlineInterval, type KlineIntervalName } from '../core/enums.js';
import type { SymbolInfo } from '../core/types.js';
import { readRecording, readRecordingBatches, type ReadStats, type RecordedItem } from '../record/reader.js';
import { SKIPPABLE_EVENTS } from '../record/skipStreams.js';
import type { MarketEvent } from '../core/marketEvents.js';
import { ConfigError } from '../core/errors.js';
import { MatchingEngine } from '../sim/engine.js';
import { timeBoundMs } from '../config/timeBound.js';
import { loadPlugin, plainErrorAt, resolvePlugin } from '../strategy/loader.js';
import { codeVersion } from './codeVersion.js';
import { klineWarnings } from './klineWarnings.js';
import { runProvenance, strategiesAsRun } from './provenance.js';
import { klineSubscriptions } from '../strategy/klines.js';
import { StrategyRunner, silentLogger, type IntentGate, type StrategySpec } from '../strategy/StrategyRunner.js';
import { readsTimer, type StrategyLogger, type StrategyPlugin } from '../strategy/types.js';
import { CandleVenue, bpsToRate } from '../venue/CandleVenue.js';
import type { BacktestConfig } from './config.js';
import { writeHtmlReport } from './htmlReport.js';
import { writeResultJson } from './resultStreams.js';
import { readKlineCsv } from './klineCsv.js';
import { mergeByTime, type Timed, type TimedBatch } from './merge.js';
import { Replay, type ReplayStats } from './Replay.js';
import { virtualTimeLog } from './runLog.js';
import { ChartSeries } from './chartSeries.js';
import { ResultCollector, type BacktestResult } from './ResultCollector.js';
import { VirtualScheduler } from '../venue/Scheduler.js';
import { SimVenue } from '../venue/SimVenue.js';
import { latencyModel } from '../venue/latency.js';
import { booksWithOwnOrders, ownOrdersOfRunner } from '../venue/OwnOrdersBook.js';
import { ShownOwnOrders } from '../venue/ShownOwnOrders.js';
import { receiveTimeBatches, type FeedTimeStats } from './feedTime.js';
import { twoClockBatches, type ClockedBatch, type StepClock } from './twoClocks.js';
import { createPipeline } from '../execution/pipeline.js';
import { TradingStateMachine } from '../risk/tradingState.js';
// The same risk gate and daily PnL as `kancil run`: one composition of the risk checker.
import { riskGate } from '../execution/riskGate.js';
import { DailyPnl } from '../execution/dailyPnl.js';

/** Ended orders (and own trades) the matching engine keeps per symbol in a backtest. */
const ENGINE_HISTORY_LIMIT = 1000;

/** Engine account id of backtests. */
export const BACKTEST_ACCOUNT = 'backtest';

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
}

/** SymbolInfo of a configured symbol (spot, every order type, STP EXPIRE_MAKER default). */
export function symbolInfoOf(symbol: string, filters: readonly WireFilter[]): SymbolInfo {
  const u = symbol.indexOf('_');
  return {
    type: 1,
    symbol,
    baseAsset: symbol.slice(0, u),
    quoteAsset: symbol.slice(u + 1),
    basePrecision: 8,
    quotePrecision: 8,
    filters: parseSymbolFilters(filters, `symbols.${symbol}.filters`),
    orderTypes: ['LIMIT', 'MARKET', 'STOP_LOSS', 'STOP_LOSS_LIMIT', 'TAKE_PROFIT', 'TAKE_PROFIT_LIMIT', 'LIMIT_MAKER'],
    defaultSelfTradePreventionMode: 'EXPIRE_MAKER',
    allowedSelfTradePreventionModes: ['EXPIRE_MAKER', 'EXPIRE_TAKER', 'EXPIRE_BOTH', 'DECREMENT'],
    icebergEnable: true,
    ocoEnable: true,
    spotTradingEnable: true,
    marginTradingEnable: false,
  };
}

/** Equity of a budget in quote terms at the start (non-quote assets count at 0 until marked: budgets should be quote). */
/**
 * The risk gate's average price from the matching engine's own trade window, so the gate checks
 * PERCENT_PRICE and NOTIONAL(applyToMarket) against the price the simulated exchange enforces
 * (and the one a live run computes from the trade stream). The previous Decimal is handed out
 * again while the value is unchanged: the risk checker caches bounds by the Decimal's identity.
 */
function engineAverage(engine: MatchingEngine, now: () => number): (symbol: string, mins: number) => Decimal | undefined {
  const last = new Map<string, Decimal>();
  return (symbol, mins) => {
    const a = engine.averagePrice(symbol, mins, now());
    if (a === null) return undefined;
    const key = `${symbol}/${mins}`;
    const prev = last.get(key);
    if (prev !== undefined && prev.eq(a)) return prev;
    last.set(key, a);
    return a;
  };
}

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
  const read: ReadStats = { lines: 0, items: 0, malformed: 0 };
  const onProgress = opts.onProgress;
  await run.replay.runBatches(sourceBatchesOf(cfg, run.unread, read), onProgress && ((st) => onProgress(st, read)));
  onProgress?.(run.replay.stats, read);
  noEventsCheck(cfg, run.replay.stats, read, run.unread);
  const result = run.finish();
  if (cfg.backtest.output !== undefined && opts.writeOutput !== false) writeReports(cfg.backtest.output, result);
  return result;
}

/** Builds everything a run needs (plugins loaded and started) without reading any data yet. */
export async function prepareRun(cfg: BacktestConfig, opts: RunOptions = {}): Promise<PreparedRun> {
  const bt = cfg.backtest;
  const candleMode = bt.candles.length > 0;
  if (candleMode && bt.recordings.length > 0) throw new RangeError(`${cfg.file}: backtest: use either recordings or candles, not both`);
  const late0: { clock?: VirtualClock } = {};
  const log = opts.log === undefined ? silentLogger : virtualTimeLog(opts.log, () => late0.clock?.now() ?? 0);

  const errorAt = plainErrorAt(cfg.file);
  checkDataFiles(cfg);
  const strategies: StrategySpec[] = [];
  // The module file of each plugin loaded from disk (not one given in opts.plugins): an input of the run.
  const pluginFiles = new Map<string, string>();
  for (const [i, s] of cfg.strategies.entries()) {
    const given = opts.plugins?.[s.plugin];
    if (given === undefined) pluginFiles.set(s.name, resolvePlugin(s.plugin, cfg.dir));
    const plugin = given ?? (await loadPlugin(s.plugin, cfg.dir, errorAt, ['strategies', i]));
    const budget: Record<string, Decimal> = {};
    for (const [a, v] of Object.entries(s.budget)) budget[a] = new Decimal(v);
    strategies.push({ name: s.name, plugin, params: { ...s.params, ...(opts.paramOverrides?.[s.name] ?? {}) }, symbols: s.symbols, budget });
  }

  const clock = new VirtualClock(0);
  late0.clock = clock;
  const scheduler = new VirtualScheduler(clock);
  const bus = new Bus();
  const makerFee = bpsToRate(bt.fees.makerBps);
  const takerFee = bpsToRate(bt.fees.takerBps);

  const exchangeFilters = parseExchangeFilters(cfg.exchangeFilters, 'exchangeFilters');
  let engine: MatchingEngine | undefined;
  let venue: SimVenue | CandleVenue;
  // Tick mode: our orders as the depth stream would show them (ShownOwnOrders.ts).
  const shown = candleMode ? undefined : new ShownOwnOrders(scheduler);
  if (candleMode) {
    venue = new CandleVenue({ scheduler, publish: (e) => bus.publish(e), makerFee, takerFee });
  } else {
    const balances: Record<string, Decimal> = {};
    if (bt.balances) for (const [a, v] of Object.entries(bt.balances)) balances[a] = new Decimal(v);
    else for (const s of strategies) for (const [a, v] of Object.entries(s.budget)) balances[a] = (balances[a] ?? new Decimal(0)).plus(v);
    engine = new MatchingEngine({
      symbols: Object.entries(cfg.symbols).map(([sym, v]) => ({ info: symbolInfoOf(sym, v.filters as WireFilter[]) })),
      accounts: [{ id: BACKTEST_ACCOUNT, makerCommission: makerFee, takerCommission: takerFee, balances }],
      exchangeFilters,
      bufferEvents: false,
      fillModel: bt.fillModel,
      queueModel: bt.queueModel,
      // Nothing in a backtest queries the engine's order history (the venue keeps its live orders
      // itself): a bound keeps a long run from holding every order it placed (~0.35 kB each). It
      // only needs to outlast a report in flight, which a thousand orders do.
      historyLimit: ENGINE_HISTORY_LIMIT,
    });
    venue = new SimVenue({ engine, accountId: BACKTEST_ACCOUNT, scheduler, publish: (e) => bus.publish(e), latency: latencyModel(bt.latency), shown });
  }

  const bookSymbols = bt.recordings.map((r) => r.symbol);
  // Sampled per bar by default on candles: a second's samples of minute bars repeat one value 60 times (and Sharpe "per second" of minute data means nothing).
  const equityMs = bt.equityIntervalMs ?? (candleMode ? Math.min(...bt.candles.map((c) => KlineInterval[c.interval as KlineIntervalName])) : 1000);
  const chart = new ChartSeries(equityMs);

  // The collector marks through the replay's books; the replay samples the collector.
  const late: { replay?: Replay; runner?: StrategyRunner } = {};
  const collector = new ResultCollector(
    strategies.map((s) => ({ name: s.name, symbols: s.symbols, initialEquity: budgetQuote(s.budget, quoteOf(s.symbols[0] ?? '')) })),
    equityMs,
    (sym) => late.replay?.mark(sym),
  );
  const replay = new Replay({
    bus,
    scheduler,
    engine,
    candleVenue: candleMode ? (venue as CandleVenue) : undefined,
    bookSymbols,
    collector,
    afterEvent: () => late.runner?.flush(),
    ...(shown ? { onDepth: (symbol: string) => shown.flush(symbol) } : {}),
    // None scheduled when no strategy reads them: they would cost the scheduler and the bus for nothing.
    timerMs: strategies.some((s) => readsTimer(s.plugin)) ? bt.timerMs : 0,
    start: bt.start === undefined ? undefined : timeBoundMs(bt.start),
    startSource: { file: cfg.file, value: bt.start },
    // Strategies get control when the replay goes live (the first item at or after backtest.start),
    // so nothing they do in onStart can place an order during the warm-up.
    onLive: () => late.runner?.start(),
    // Trade recordings: the bars the strategies read are built from the trades, as the sandbox's klines of a replay.
    ...(candleMode ? {} : { bars: klineSubscriptions(strategies) }),
  });
  late.replay = replay;
  // The same composition as live and paper: risk gate -> venue, results back on the bus. No ledger:
  // a backtest's journal is its result.
  const states = new TradingStateMachine({ onChange: (e) => bus.publish(e) });
  // Daily PnL per strategy (UTC day of the virtual clock) for the daily loss limit, as in `kancil run`.
  const daily = new DailyPnl();
  // Only the default gate's daily loss limit asks for the daily PnL, and DailyPnl holds the day's
  // fills until first asked (it folds them then): with no such limit configured they would stay
  // alive for the whole run (every fill event and its amounts promoted out of the young
  // generation, copied twice by its collector), and nobody would ever read them.
  const dailyAsked = opts.gate === undefined && [cfg.risk, ...cfg.strategies.map((s) => s.risk)].some((r) => r?.dailyLossLimit !== undefined);
  // The collector, the trading-state machine and the daily PnL, in this order, as one bus listener:
  // every replayed event reaches it, and one call per event costs less than three.
  // Symbols that had a kline on the bus: a kline strategy over data that gives none is said so, not left to end with no trade and exit 0.
  const withKlines = new Set<string>();
  bus.listen((e) => {
    collector.onEvent(e);
    if (e.type === 'kline') {
      chart.kline(e);
      if (!withKlines.has(e.symbol)) withKlines.add(e.symbol);
    }
    states.onEvent(e);
    if (e.type === 'fill' && dailyAsked) daily.add(clock.now(), e);
  });
  const symbols = candleMode
    ? bt.candles.map((c) => symbolInfoOf(c.symbol, (cfg.symbols[c.symbol]?.filters ?? []) as WireFilter[]))
    : Object.entries(cfg.symbols).map(([sym, v]) => symbolInfoOf(sym, v.filters as WireFilter[]));
  const gate =
    opts.gate ??
    riskGate({
      symbols,
      config: cfg.risk,
      states,
      now: () => clock.now(),
      book: (s) => late.replay?.book(s),
      lastPrice: (s) => late.replay?.lastPrice(s),
      ...(engine ? { avgPrice: engineAverage(engine, () => clock.now()) } : {}),
      exchangeFilters,
      liveOrders: () => venue.liveIntents(),
      ...(venue instanceof SimVenue ? { liveOrderCounts: (s: string | undefined) => venue.openOrderCounts(s) } : {}),
      dailyPnl: (strategy) => daily.of(strategy, clock.now(), (s) => late.replay?.mark(s)),
      strategyConfig: (name) => cfg.strategies.find((s) => s.name === name)?.risk,
    });
  const pipeline = createPipeline({ bus, venue, risk: gate, clock, log });
  pipeline.start();
  // No run tag: a backtest's clientIds are the same on every run (determinism).
  const filtersOf = new Map(symbols.map((i) => [i.symbol, i.filters]));
  // Strategies read the replayed book with the account's own resting orders in it, as live (OwnOrdersBook.ts).
  const books = booksWithOwnOrders((s) => replay.book(s), shown ? (s) => shown.orders(s) : ownOrdersOfRunner(() => late.runner));
  const runner = new StrategyRunner(strategies, { bus, clock, venue: pipeline.venue, books, gate: pipeline.gate, log, symbolFilters: (s) => filtersOf.get(s), plot: (strategy, symbol, name, v, pane) => chart.plot(strategy, symbol, name, clock.now(), v, pane) });
  late.runner = runner;
  const provenance = runProvenance(cfg, codeVersion(), strategiesAsRun(cfg, strategies, errorAt), pluginFiles);
  return {
    engine,
    replay,
    runner,
    bus,
    unread: unreadEvents(strategies.map((s) => s.plugin)),
    step: (t, item, clock) => replay.step(t, item, clock),
    finish: () => {
      runner.stop();
      // replay.finish throws when the data ended before backtest.start: the pipeline, the venue's
      // engine subscription and the bus are released either way.
      try {
        replay.finish();
      } finally {
        pipeline.stop();
        if (venue instanceof SimVenue) venue.dispose();
        bus.close();
      }
      return collector.finish(cfg.name, runner.failures, chart.finish(), provenance, klineWarnings(strategies, withKlines, cfg));
    },
  };
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
  const symbolOf = (wire: string): string => wireToSymbol.get(wire.toUpperCase()) ?? wire;
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

/** Writes result.json and report.html into `dir`. */
export function writeReports(dir: string, result: BacktestResult): { json: string; html: string } {
  mkdirSync(dir, { recursive: true });
  const json = path.join(dir, 'result.json');
  const html = path.join(dir, 'report.html');
  writeResultJson(json, result);
  writeHtmlReport(html, result);
  return { json, html };
}
