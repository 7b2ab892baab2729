/**
 * The start-up steps of a `kancil run` that do not depend on the mode, in the order RunSession
 * takes them: the ledger's start row, the exchange client and the data every check reads
 * (symbols, reference and average prices), the market streams, start-up reconciliation, and what
 * a strategy carries over from its earlier runs.
 */
import type { Bus } from '../bus/Bus.js';
import type { Clock } from '../core/clock.js';
import { Decimal } from '../core/decimal.js';
import { ConfigError, StateError } from '../core/errors.js';
import { parseExchangeFilters, type ExchangeFilters } from '../core/filters.js';
import type { SymbolInfo } from '../core/types.js';
import { OpenClient } from '../exchange/open/OpenClient.js';
import { AveragePrices } from '../execution/AveragePrices.js';
import { fillEventOf, orderUpdateOf, type OrderTracker } from '../execution/OrderTracker.js';
import { ReferencePrices } from '../execution/ReferencePrices.js';
import type { DailyPnl } from '../execution/dailyPnl.js';
import type { MatchingEngine } from '../sim/engine.js';
import { Ledger } from '../store/Ledger.js';
import type { FillRecord } from '../store/records.js';
import { klineSubscriptions } from '../strategy/klines.js';
import type { StrategyRunner, StrategySpec } from '../strategy/StrategyRunner.js';
import type { ShownOwnOrders } from '../venue/ShownOwnOrders.js';
import type { Cleanup } from './cleanup.js';
import { RunMarket } from './runMarket.js';
import type { RunSessionOptions } from './runSessionOptions.js';
import type { RunVenue } from './runSessionVenue.js';
import { optional, strategySymbols } from './runSetup.js';
import { retryStartup, StartupStopped, transientWaitMs } from './startupRetry.js';

/** One start-up step, retried while the exchange's failure is transient, within run.startupWaitSec. */
export type StartupStep = <T>(what: string, fn: () => Promise<T>) => Promise<T>;

/** The ledger of a run, with its start journalled. */
export interface RunStart {
  readonly ledger: Ledger;
  readonly startedAt: number;
  readonly runNo: number;
  /** Goes into every clientId and intentId of this run. */
  readonly runTag: string;
}

/** Opens the ledger and journals the start; every write of the run that fails is told to `onWriteFailure`. */
export function beginRun(o: RunSessionOptions, clock: Clock, onWriteFailure: (err: unknown) => void): RunStart {
  const cfg = o.config;
  // A run journals each order before sending it: no commit of it may stall on a checkpoint.
  const ledger = Ledger.open(cfg.storage.path, { checkpointInWorker: true, onWriteFailure });
  const startedAt = clock.now();
  const runNo = ledger.countJournal('start') + 1;
  // The run tag goes into every clientId and intentId of this run, so a restart (on this ledger
  // or another one trading the same account) never reuses the id of an order that may still be
  // live, while strategy names stay the same across restarts.
  const runTag = startedAt.toString(36);
  ledger.journal(startedAt, 'start', { mode: cfg.mode, name: cfg.name, run: runNo, runTag, pid: process.pid });
  return { ledger, startedAt, runNo, runTag };
}

/**
 * Journals the stop of a run whose start-up failed or was stopped, so the ledger does not show it
 * as killed or crashed (`kancil status` reads the last start and stop rows). Returns the error to
 * throw: a stop during a live start-up counts the orders the ledger still holds as live (earlier
 * runs' orders it could not reconcile: the exit code says so).
 */
export function endFailedStart(ledger: Ledger, clock: Clock, live: boolean, err: unknown): unknown {
  const stopped = err instanceof StartupStopped;
  const message = err instanceof Error ? err.message : String(err);
  const reason = stopped ? `${err.reason} during start-up, ${err.during}` : message.startsWith('could not start') ? message : `could not start: ${message}`;
  try {
    ledger.journal(clock.now(), 'stop', { reason });
    if (stopped && live) return new StartupStopped(err.step, err.reason, ledger.openOrders().length, err.waiting);
  } catch {
    // A ledger that cannot be written (disk full) must not hide the start-up's own error.
  }
  return err;
}

/** The open API client of the run's endpoints and credentials. */
export function openClient(o: RunSessionOptions): OpenClient {
  const { config: cfg, endpoints: ep, credentials: cr } = o;
  return new OpenClient({
    baseUrl: ep.base_url,
    marketUrl: ep.market_url,
    depthUrl: ep.depth_url ?? ep.market_url,
    ...(cr.apiKey !== undefined ? { apiKey: cr.apiKey } : {}),
    ...(cr.apiSecret !== undefined ? { apiSecret: cr.apiSecret } : {}),
    recvWindow: cfg.exchange?.recvWindow ?? 5000,
    timeoutMs: cfg.exchange?.timeoutMs ?? 10_000,
    ...(cfg.exchange?.weightLimits ? { weightLimits: cfg.exchange.weightLimits } : {}),
  });
}

/**
 * A start during a ban, a maintenance or a lost answer waits it out (bounded) instead of exiting
 * at once: one bound (run.startupWaitSec) for every start-up step; past it the run fails naming the step.
 */
export function startupSteps(o: RunSessionOptions, clock: Clock, startedAt: number): StartupStep {
  const log = o.log;
  const onRetry = (what: string, err: Error, waitMs: number): void => log.warn({ err: err.message, waitMs }, `start-up: ${what} failed for now; asking again`);
  const startDeadline = clock.now() + o.config.run.startupWaitSec * 1000;
  return <T>(what: string, fn: () => Promise<T>): Promise<T> =>
    retryStartup(what, fn, { onRetry, boundMs: Math.max(0, startDeadline - clock.now()), ...(o.stopSignal ? { signal: o.stopSignal } : {}) }).catch((err: unknown) => {
      if (transientWaitMs(err, 0) === undefined) throw err;
      throw new StateError(`could not start: ${what} still failing after ${Math.round((clock.now() - startedAt) / 1000)} s of retries (${err instanceof Error ? err.message : String(err)})`, { cause: err });
    });
}

/** What the exchange says that every check reads: symbols, PRICE_RANGE reference prices, average prices, exchange filters. */
export interface ExchangeData {
  readonly symbols: SymbolInfo[];
  readonly refs: ReferencePrices;
  readonly averages: AveragePrices;
  readonly exchangeFilters: ExchangeFilters;
  /** Paper: the engine that follows the reference prices, once it exists. */
  readonly priceFollower: { engine?: MatchingEngine };
}

/** Syncs time, fetches the symbols and starts the reference prices (before the gate and the paper engine are built). */
export async function exchangeData(o: RunSessionOptions, open: OpenClient, clock: Clock, step: StartupStep, cleanup: Cleanup): Promise<ExchangeData> {
  const { config: cfg, log } = o;
  await step('server time', () => open.syncTime());
  const symbols = await step('symbols', () => strategySymbols(open, cfg));
  // Trade and reference-price times are the exchange's: windows and ages are measured on its clock.
  const exchangeNow = (): number => clock.now() + open.timeOffsetMs;
  const priceFollower: { engine?: MatchingEngine } = {};
  const refs = new ReferencePrices({
    symbols,
    source: open,
    now: exchangeNow,
    log: log.child({ part: 'referencePrice' }),
    // Options (tests) over the config's exchange section; without either, the class's defaults.
    ...optional('refreshMs', o.referencePrice?.refreshMs ?? cfg.exchange?.referencePriceRefreshMs),
    ...optional('maxAgeMs', o.referencePrice?.maxAgeMs ?? cfg.exchange?.referencePriceMaxAgeMs),
    // Paper fills expire outside the range as live ones do; the engine is built from the first prices.
    onPrice: (symbol, price) => priceFollower.engine?.setReferencePrice(symbol, price, clock.now()),
  });
  cleanup.push(() => refs.stop());
  await refs.start();
  const exchangeFilters = parseExchangeFilters(cfg.exchangeFilters, 'exchangeFilters');
  const averages = new AveragePrices({ symbols, source: open, now: exchangeNow, log: log.child({ part: 'avgPrice' }) });
  return { symbols, refs, averages, exchangeFilters, priceFollower };
}

/** Starts the market streams (and then the user streams), books shown with our simulated orders on paper. */
export function startMarket(o: RunSessionOptions, bus: Bus, open: OpenClient, ex: ExchangeData, venue: RunVenue, clock: Clock, cleanup: Cleanup): RunMarket {
  const ep = o.endpoints;
  // Paper: our orders in the engine, as the depth stream would show them (ShownOwnOrders.ts).
  const shown: ShownOwnOrders | undefined = venue.sim?.shown;
  const market = new RunMarket({
    bus,
    hosts: { stream_url: ep.stream_url, ...(ep.stream_url_next ? { stream_url_next: ep.stream_url_next } : {}), ...(ep.stream_url_new ? { stream_url_new: ep.stream_url_new } : {}) },
    symbols: ex.symbols,
    snapshots: open,
    log: o.log,
    ...(venue.sim ? { engine: venue.sim.engine } : {}),
    klines: klineSubscriptions(
      o.config.strategies.flatMap((s) => {
        const plugin = o.plugins.get(s.name);
        return plugin ? [{ plugin, params: s.params, symbols: s.symbols }] : [];
      }),
    ),
    averages: ex.averages,
    now: () => clock.now(),
    ...(shown ? { onDepth: (s: string) => shown.flush(s) } : {}),
  });
  cleanup.push(() => market.close());
  market.start();
  for (const u of venue.user) u.start();
  return market;
}

/** The configured strategies with their loaded plugins and budgets. */
export function strategySpecs(o: RunSessionOptions): StrategySpec[] {
  const cfg = o.config;
  return cfg.strategies.map((s) => {
    const plugin = o.plugins.get(s.name);
    if (!plugin) throw new ConfigError(cfg.file, 'strategies', s.name, 'plugin not loaded');
    return { name: s.name, plugin, params: s.params, symbols: s.symbols, budget: Object.fromEntries(Object.entries(s.budget).map(([k, v]) => [k, new Decimal(v)])) };
  });
}

/**
 * Live: what the ledger says is live is checked against the exchange before anything trades, then
 * the router's loops start. Paper: orders an earlier paper run left open are closed (its simulator is gone).
 */
export async function reconcileAtStart(o: RunSessionOptions, venue: RunVenue, tracker: OrderTracker, step: StartupStep): Promise<void> {
  const log = o.log;
  const router = venue.router;
  if (router === undefined) {
    const closed = venue.tracked?.recover() ?? [];
    if (closed.length > 0) log.warn({ orders: closed.map((c) => c.clientId) }, 'orders an earlier paper run left open were closed (its simulator is gone)');
    return;
  }
  const unknown = await step('start-up reconciliation', () => router.recover());
  const earlier = tracker.liveOrders();
  if (earlier.length > 0) {
    // Adopted below by the strategy of the same name (its own book shows them); an order of a
    // strategy no longer configured stays on the book until it fills or shutdown cancels it.
    log.warn({ orders: earlier.map((e) => ({ clientId: e.clientId, strategy: e.strategy, state: e.state })) }, 'live orders of an earlier run are still open');
  }
  if (unknown.length > 0) log.warn({ unknown: unknown.map((u) => u.clientId) }, 'orders still of unknown outcome after start-up reconciliation; the poll loop keeps resolving them');
  router.start();
}

/**
 * Live: each strategy starts from what its earlier runs left on the account (the same name across
 * restarts): their fills in its position and budget, their live orders as its own. Starting flat,
 * an inventory-limited strategy would buy its inventory again after every restart, and a budget
 * would be spent once per run. Paper runs start a fresh simulator: nothing is carried.
 * Returns the fills carried.
 */
export function carryEarlierRuns(live: boolean, ledger: Ledger, tracker: OrderTracker, runner: StrategyRunner): FillRecord[] {
  if (!live) return [];
  const carried = ledger.fills().filter((f) => runner.names.includes(f.strategy));
  for (const f of carried) runner.book(f.strategy).fill(fillEventOf(f));
  for (const ord of tracker.liveOrders()) if (runner.names.includes(ord.strategy)) runner.book(ord.strategy).update(orderUpdateOf(ord));
  return carried;
}

/**
 * Live: the fills earlier runs recorded today count against today's loss limit (a restart must
 * not give a strategy a fresh limit); the ones start-up reconciliation finds arrive on the bus.
 */
export function countEarlierFills(live: boolean, ledger: Ledger, daily: DailyPnl, clock: Clock): void {
  if (live) for (const f of ledger.fills()) daily.add(clock.now(), { ...f, E: f.time });
}
