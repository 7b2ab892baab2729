/**
 * One `kancil run`, live or paper. The parts every run shares (trading states, daily PnL, risk
 * gate, pipeline, strategy runner) come from the composition root (src/run/assemble.ts); what
 * differs by mode is the venue (runSessionVenue.ts): live, the order router over the open API
 * (legacy fallback) with the user data stream; paper, the matching engine following the live books
 * through the simulated venue. Both keep the ledger and the tracker, so a paper run's journal
 * looks like a live one.
 *
 * Start order matters for money: ledger, exchange metadata, venue, market data, reconciliation of
 * whatever the ledger says is live (live mode), and only then strategies (`start` reads as these steps).
 */
import { Bus } from '../bus/Bus.js';
import type { TradingStateName } from '../bus/events.js';
import { systemClock } from '../core/clock.js';
import type { OpenClient } from '../exchange/open/OpenClient.js';
import type { OrderRouter } from '../execution/OrderRouter.js';
import { OrderTracker } from '../execution/OrderTracker.js';
import type { Pipeline } from '../execution/pipeline.js';
import { addFill, type SymbolBook } from '../execution/dailyPnl.js';
import type { ReferencePrices } from '../execution/ReferencePrices.js';
import { BalanceSource, LiveBalances } from '../execution/balances.js';
import type { TradingStateMachine } from '../risk/tradingState.js';
import { assembleRun, type AssembledRun } from '../run/assemble.js';
import type { Ledger } from '../store/Ledger.js';
import type { FillRecord } from '../store/records.js';
import type { StrategyRunner, StrategyState } from '../strategy/StrategyRunner.js';
import { readsTimer } from '../strategy/types.js';
import { checkBudgets } from './budgets.js';
import { Cleanup } from './cleanup.js';
import type { RunMarket } from './runMarket.js';
import type { RunParts } from './runParts.js';
import { followBalances, RunAccount } from './runSessionBalances.js';
import { watchExchange } from './runSessionHealth.js';
import type { RunSessionOptions } from './runSessionOptions.js';
import type { PaperParts } from './runSessionPaper.js';
import { beginRun, carryEarlierRuns, endFailedStart, countEarlierFills, exchangeData, openClient, reconcileAtStart, startMarket, startupSteps, strategySpecs } from './runSessionStart.js';
import { liveVenue, paperRunVenue, type RunVenue } from './runSessionVenue.js';
import { RunFailure } from './runFailure.js';
import { RunRejections, runSummary, statusLine, type RunSummary } from './runStatus.js';
import { settleMsOf } from './runSetup.js';
import { StartupStopped } from './startupRetry.js';

export type { RunCredentials, RunEndpoints, RunSessionOptions } from './runSessionOptions.js';

/** A running bot (live or paper). */
export class RunSession {
  readonly ledger: Ledger;
  readonly bus: Bus;
  readonly startedAt: number;
  /** An error no part of the run could handle (a ledger write on a full disk): its `failed` resolves with the stop reason. */
  readonly failure: RunFailure;
  readonly #o: RunSessionOptions;
  readonly #open: OpenClient;
  readonly #market: RunMarket;
  readonly #refs: ReferencePrices;
  readonly #tracker: OrderTracker;
  readonly #venue: RunVenue;
  readonly #router: OrderRouter | undefined;
  readonly #run: AssembledRun;
  readonly #states: TradingStateMachine;
  readonly #pipeline: Pipeline<StrategyState>;
  readonly #runner: StrategyRunner;
  readonly #strategyNames: readonly string[];
  readonly #timers: NodeJS.Timeout[] = [];
  /**
   * The one ref'd handle of a running session. Every other timer is unref'd, so when the exchange
   * drops every socket at once nothing else keeps the event loop alive and Node would exit (code
   * 13) with orders resting and nobody managing them; this holds the process until stop.
   */
  readonly #hold = setInterval(() => undefined, 3_600_000);
  readonly #subs: { unsubscribe(): void }[] = [];
  /** Positions of this run's strategies, kept from fill events (each is a new ledger fill). */
  readonly #books = new Map<string, SymbolBook>();
  readonly #rejections: RunRejections;
  #account: RunAccount | undefined;
  #stopped: Promise<RunSummary> | undefined;
  #stopReason: string | undefined;
  /** This run's fills as the ledger held them when it closed: the console answers until it closes itself. */
  #fillsAtClose: readonly FillRecord[] | undefined;

  private constructor(
    o: RunSessionOptions,
    parts: { ledger: Ledger; bus: Bus; open: OpenClient; market: RunMarket; refs: ReferencePrices; tracker: OrderTracker; venue: RunVenue; run: AssembledRun; rejections: RunRejections; startedAt: number; failure: RunFailure },
  ) {
    this.#o = o;
    this.ledger = parts.ledger;
    this.bus = parts.bus;
    this.#open = parts.open;
    this.#market = parts.market;
    this.#refs = parts.refs;
    this.#tracker = parts.tracker;
    this.#venue = parts.venue;
    this.#router = parts.venue.router;
    this.#run = parts.run;
    this.#states = parts.run.states;
    this.#pipeline = parts.run.pipeline;
    this.#runner = parts.run.runner;
    this.#strategyNames = parts.run.runner.names;
    this.#rejections = parts.rejections;
    this.startedAt = parts.startedAt;
    this.failure = parts.failure;
  }

  /** Builds and starts everything; resolves when strategies are running. */
  static async start(o: RunSessionOptions): Promise<RunSession> {
    const { config: cfg, log } = o;
    const clock = systemClock;
    const live = cfg.mode === 'live';
    const failure = new RunFailure(log);
    // A write that fails stops the run wherever it was: most callers (a REST answer, a poll, the
    // gate) handle the error locally and go on, which would leave the run trading unjournalled.
    const { ledger, startedAt, runNo, runTag } = beginRun(o, clock, (err) => failure.report(err, 'a ledger write'));
    const bus = new Bus({ onListenerError: (err, e) => failure.report(err, `handling an event (${e.type})`) });
    const cleanup = new Cleanup(() => ledger.close(), () => bus.close());
    try {
      const open = openClient(o);
      cleanup.push(() => open.close());
      const step = startupSteps(o, clock, startedAt);
      const ex = await exchangeData(o, open, clock, step, cleanup);
      const infoOf = new Map(ex.symbols.map((s) => [s.symbol, s]));
      const tracker = new OrderTracker({ ledger, clock, emit: (e) => bus.publish(e), symbolInfo: (s) => infoOf.get(s), log: log.child({ part: 'tracker' }) });
      // The account's balances from every source (stream, REST, simulator), recorded when they change.
      const balances = new LiveBalances(ledger, () => clock.now());
      const inputs = { o, bus, clock, ledger, open, tracker, balances, symbols: ex.symbols, refs: ex.refs, exchangeFilters: ex.exchangeFilters, cleanup, failure };
      const venue = live ? await liveVenue(inputs) : paperRunVenue(inputs);
      ex.priceFollower.engine = venue.sim?.engine;
      const market = startMarket(o, bus, open, ex, venue, clock, cleanup);
      const run = assembleRun({
        clock,
        bus,
        venue: venue.venue,
        reconciler: venue.venue,
        ledger,
        market,
        // Paper: the engine holds our orders, the streamed book does not; live, the exchange's does.
        ownOrders: venue.sim ? (s) => (venue.sim as PaperParts).shown.orders(s) : undefined,
        symbols: ex.symbols,
        strategies: strategySpecs(o),
        risk: {
          config: cfg.risk,
          avgPrice: (s, mins) => ex.averages.avgPrice(s, mins),
          referencePrice: (s) => ex.refs.referencePrice(s),
          priceRanges: ex.refs.priceRanges,
          exchangeFilters: ex.exchangeFilters,
          liveOrders: venue.liveOrders,
          strategyConfig: (name) => cfg.strategies.find((s) => s.name === name)?.risk,
        },
        countDailyFills: true,
        log,
        runner: { log: log.child({ part: 'strategy' }), runTag, onFailure: (name, err) => ledger.journal(clock.now(), 'strategyFailed', { strategy: name, err: err instanceof Error ? err.message : String(err) }) },
      });
      cleanup.push(() => run.stop());
      countEarlierFills(live, ledger, run.daily, clock);
      await reconcileAtStart(o, venue, tracker, step);
      await market.whenReady(o.bookReadyTimeoutMs ?? 15_000, o.booksSignal).catch((err: unknown) => {
        if (err instanceof StartupStopped) throw err;
        log.warn({ err: (err as Error).message }, 'starting before every book is ready (orders are halted per symbol until it is)');
      });
      // The trade windows are filled from REST once the streams are connected (ready books mean
      // they are), so no trade falls between the REST answer and the first stream trade; stream
      // trades that arrived meanwhile are held back and joined by trade id. Strategies start after.
      await ex.averages.warmUp();
      const carried = carryEarlierRuns(live, ledger, tracker, run.runner);
      if (venue.router) checkBudgets(cfg.file, cfg.strategies.map((s) => ({ name: s.name, budget: s.budget, free: (asset: string) => run.runner.book(s.name).free(asset) })), venue.router.balances);
      const { rejections, flushSub } = startStrategies(bus, ledger, run.runner, cleanup);
      const session = new RunSession(o, { ledger, bus, open, market, refs: ex.refs, tracker, venue, run, rejections, startedAt, failure });
      session.#follow({ balances, carried, flushSub });
      log.info({ mode: cfg.mode, run: runNo, runTag, strategies: session.#strategyNames, symbols: ex.symbols.map((s) => s.symbol) }, 'running');
      return session;
    } catch (err) {
      const failure = endFailedStart(ledger, clock, live, err);
      await cleanup.unwind();
      throw failure;
    }
  }

  /** What a running session keeps up: balances, the account's marks, exchange liveness, positions, timers. */
  #follow(p: { balances: LiveBalances; carried: readonly FillRecord[]; flushSub: { unsubscribe(): void } }): void {
    const { config: cfg, log } = this.#o;
    const { bus, ledger } = this;
    const clock = systemClock;
    const router = this.#router;
    const stopBalances = followBalances({ bus, balances: p.balances, log, source: router ? BalanceSource.STREAM : BalanceSource.SIM, ...(router ? { refresh: () => router.refreshBalances() } : {}) });
    const account = (this.#account = new RunAccount(ledger, p.balances, cfg.strategies.flatMap((x) => x.symbols), (x) => this.#market.mark(x)));
    const stopWatch = watchExchange({ bus, states: this.#states, ledger, clock, log, probe: () => this.#open.time(), silenceMs: cfg.run.exchangeSilenceSec * 1000, live: cfg.mode === 'live' });
    this.#subs.push(p.flushSub, { unsubscribe: stopWatch }, { unsubscribe: stopBalances });
    const mine = new Set(this.#strategyNames);
    for (const f of p.carried) addFill(this.#books, f);
    this.#subs.push(
      bus.events$.subscribe((e) => {
        if (e.type === 'fill' && mine.has(e.strategy)) addFill(this.#books, e);
      }),
    );
    if (cfg.run.timerMs > 0 && [...this.#o.plugins.values()].some(readsTimer)) this.#every(cfg.run.timerMs, () => bus.publish({ type: 'timer', E: clock.now() }));
    this.#every(cfg.run.statusIntervalSec * 1000, () => log.info(this.status(), 'status'));
    this.#every(60_000, () => account.journalMarks(clock.now()));
    // Clocks drift and get stepped (NTP, a suspended VM): with a stale offset every signed
    // request falls outside the recvWindow and is refused, and the unknown-outcome settle rule
    // (absent after recvWindow + 1 s means never placed) would rest on a wrong timestamp.
    this.#every(this.#o.timeSyncMs ?? 600_000, () => {
      this.#open.syncTime().catch((err: unknown) => log.warn({ err: err instanceof Error ? err.message : String(err) }, 'server time sync failed; keeping the last offset'));
    });
  }

  /** Strategy names of this run (as configured; the same across restarts). */
  get strategies(): readonly string[] {
    return this.#strategyNames;
  }

  /** Strategy failures so far. */
  get failures(): readonly { strategy: string; error: string }[] {
    return this.#runner.failures;
  }

  /** The router (live mode), for tests and the status line. */
  get router(): OrderRouter | undefined {
    return this.#router;
  }

  /** The run's parts, for the operator's console (src/cli/runConsole.ts): read, and commanded through their own methods. */
  get parts(): RunParts {
    return { config: this.#o.config, tracker: this.#tracker, market: this.#market, router: this.#router, sim: this.#venue.sim?.venue, states: this.#states, runner: this.#runner, pipeline: this.#pipeline, books: this.#books, rateLimits: this.#open.rateLimits, balances: () => this.#account?.balances() ?? [], equity: () => this.#account?.equity(), dailyPnl: (strategy) => this.#run.daily.of(strategy, systemClock.now(), (s) => this.#market.mark(s)), clockOffsetMs: () => this.#open.timeOffsetMs };
  }

  /** Operator command: sets the trading state floor (HALTED: only cancels pass; REDUCING: only exposure-reducing orders). */
  setTradingState(state: TradingStateName, reason: string): void {
    this.#states.command(state, reason, systemClock.now());
    this.ledger.journal(systemClock.now(), 'operator', { state, reason });
  }

  /** The reason of the stop once it has begun, else undefined: operator commands are refused from then on. */
  get stopping(): string | undefined {
    return this.#stopReason;
  }

  /** This run's fills in the ledger, oldest first; after the stop, those it held when it closed. */
  runFills(): readonly FillRecord[] {
    return this.#fillsAtClose ?? this.ledger.fills().filter((f) => f.time >= this.startedAt);
  }

  /** One status record: positions, open orders, PnL per strategy. */
  status(): Record<string, unknown> {
    return statusLine(this.#books, this.#strategyNames, this.#tracker.liveOrders(), (s) => this.#market.mark(s), this.#pipeline.stats, this.#account?.equity());
  }

  /**
   * Graceful stop: strategies first (no new intents), then optionally cancel open orders and wait
   * for the answers, then close streams and flush the ledger. Idempotent.
   */
  stop(reason: string): Promise<RunSummary> {
    this.#stopReason ??= reason;
    this.#stopped ??= this.#stop(reason).finally(() => clearInterval(this.#hold));
    return this.#stopped;
  }

  async #stop(reason: string): Promise<RunSummary> {
    const { config: cfg, log } = this.#o;
    log.info({ reason }, 'stopping');
    for (const t of this.#timers) clearInterval(t);
    this.#runner.stop();
    let ordersLeft = 0;
    if (cfg.run.cancelOnShutdown) {
      // Every live order in this ledger is the bot's, including orders of earlier runs that
      // start-up reconciliation found still open.
      const live = this.#tracker.liveOrders();
      if (live.length > 0) {
        log.info({ orders: live.length }, 'cancelling open orders');
        if (this.#router) {
          // Long enough for an UNKNOWN order to be proven absent or found (and then cancelled).
          const left = await this.#router.cancelAllAndWait(Math.max(3000, settleMsOf(cfg) + 2000));
          ordersLeft = left.length;
          if (left.length > 0) log.warn({ orders: left.map((o) => ({ clientId: o.clientId, state: o.state })) }, 'orders still live or unresolved at shutdown; the next start reconciles them');
        } else {
          for (const o of live) this.#pipeline.venue.submit({ kind: 'cancel', strategy: o.strategy, intentId: `shutdown:${o.clientId}`, symbol: o.symbol, clientId: o.clientId });
          await this.#waitOrdersSettled(3000);
        }
      }
    }
    // Fills that the user stream had not delivered yet are fetched by orderId: none may stay unrecorded.
    try {
      await this.#router?.fetchAllMissingFills(this.startedAt);
    } catch (err) {
      log.warn({ err: err instanceof Error ? err.message : String(err) }, 'could not fetch missing fills at shutdown; the next start reconciles them');
    }
    this.#orReport('journalling the marks', () => this.#account?.journalMarks(systemClock.now()));
    const summary = runSummary(this.ledger, this.#strategyNames, (s) => this.#market.mark(s), reason, this.startedAt, systemClock.now(), this.#runner.failures, ordersLeft, this.#rejections.byStrategy());
    this.#run.stop();
    // A reconciliation under way (a user-stream reconnect, the exchange back after an outage)
    // stops at its next step once the router does; both are awaited before the ledger closes.
    await this.#router?.stop();
    await this.#pipeline.settled();
    for (const s of this.#subs) s.unsubscribe();
    for (const u of this.#venue.user) await u.close();
    this.#refs.stop();
    await this.#market.close();
    this.#venue.sim?.scheduler.cancelAll();
    await this.#open.close();
    await this.#venue.legacy?.close();
    this.#orReport('journalling the stop', () => this.ledger.journal(systemClock.now(), 'stop', { reason }));
    this.bus.close();
    this.#fillsAtClose = this.runFills();
    this.#orReport('closing the ledger', () => this.ledger.close());
    return summary;
  }

  /** Runs `fn`; an error (a write of the stop or of a periodic task on a full disk) is reported to the run's failure, not thrown: the stop goes on to its summary, a timer does not end the process. */
  #orReport(what: string, fn: () => void): void {
    try {
      fn();
    } catch (err) {
      this.failure.report(err, what);
    }
  }

  async #waitOrdersSettled(ms: number): Promise<void> {
    const deadline = Date.now() + ms;
    while (Date.now() < deadline) {
      const live = this.#tracker.liveOrders().filter((o) => o.state !== 'UNKNOWN');
      if (live.length === 0) return;
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  #every(ms: number, fn: () => void): void {
    const t = setInterval(() => this.#orReport('a periodic task', fn), ms);
    t.unref();
    this.#timers.push(t);
  }
}

/**
 * Starts the strategies: their refusals counted from before the start (a strategy's onStart may
 * already send refused intents), and risk rejections queued while a handler ran published after
 * each bus event.
 */
function startStrategies(bus: Bus, ledger: Ledger, runner: StrategyRunner, cleanup: Cleanup): { rejections: RunRejections; flushSub: { unsubscribe(): void } } {
  const rejections = new RunRejections(runner.names, (id, intentId) => ledger.order(id)?.intentId === intentId);
  cleanup.push(bus.listen((e) => rejections.onEvent(e)));
  runner.start();
  const flushSub = bus.events$.subscribe(() => runner.flush());
  cleanup.push(() => flushSub.unsubscribe());
  runner.flush();
  return { rejections, flushSub };
}
