/**
 * One `kancil run`, live or paper, composed from the same pieces a backtest uses:
 * bus, strategy runner, risk gate, pipeline, venue, ledger. Live: the order router over the open
 * API (legacy fallback) with the user data stream; paper: the matching engine following the live
 * books through the simulated venue. Both keep the ledger and the tracker, so a paper run's
 * journal looks like a live one.
 *
 * Start order matters for money: ledger, exchange metadata, market data, venue, reconciliation of
 * whatever the ledger says is live (live mode), and only then strategies.
 */
import { Bus } from '../bus/Bus.js';
import type { TradingStateName } from '../bus/events.js';
import { systemClock } from '../core/clock.js';
import { Decimal } from '../core/decimal.js';
import { parseExchangeFilters } from '../core/filters.js';
import { ConfigError, StateError } from '../core/errors.js';
import { LegacyClient } from '../exchange/legacy/LegacyClient.js';
import { TimeNonceStore } from '../exchange/legacy/NonceStore.js';
import { OpenClient } from '../exchange/open/OpenClient.js';
import { OrderRouter } from '../execution/OrderRouter.js';
import { OrderTracker, fillEventOf, orderUpdateOf } from '../execution/OrderTracker.js';
import { TrackedVenue } from '../execution/TrackedVenue.js';
import { TradingStateJournal } from '../execution/stateJournal.js';
import { legacyPort } from '../execution/legacyAdapter.js';
import { openPort } from '../execution/openPort.js';
import { createPipeline, type Pipeline } from '../execution/pipeline.js';
import { addFill, DailyPnl, type SymbolBook } from '../execution/dailyPnl.js';
import { riskGate } from '../execution/riskGate.js';
import { AveragePrices } from '../execution/AveragePrices.js';
import { ReferencePrices } from '../execution/ReferencePrices.js';
import { TradingStateMachine } from '../risk/tradingState.js';
import type { MatchingEngine } from '../sim/engine.js';
import { Ledger } from '../store/Ledger.js';
import { StrategyRunner, type StrategySpec, type StrategyState } from '../strategy/StrategyRunner.js';
import { klineSubscriptions } from '../strategy/klines.js';
import { readsTimer } from '../strategy/types.js';
import type { SimVenue } from '../venue/SimVenue.js';
import { booksWithOwnOrders } from '../venue/OwnOrdersBook.js';
import type { ShownOwnOrders } from '../venue/ShownOwnOrders.js';
import type { WallScheduler } from '../venue/Scheduler.js';
import { BalanceSource, LiveBalances } from '../execution/balances.js';
import { paperVenue } from './runSessionPaper.js';
import { followBalances, RunAccount } from './runSessionBalances.js';
import { checkBudgets } from './budgets.js';
import { RunMarket } from './runMarket.js';
import type { RunParts } from './runParts.js';
import { RunRejections, runSummary, statusLine, type RunSummary } from './runStatus.js';
import { watchExchange } from './runSessionHealth.js';
import { discoverWsApiUrl, userStreams, type UserStream } from './userStream.js';
import { retryStartup, transientWaitMs } from './startupRetry.js';
import { optional, settleMsOf, strategySymbols } from './runSetup.js';
import type { RunSessionOptions } from './runSessionOptions.js';

export type { RunCredentials, RunEndpoints, RunSessionOptions } from './runSessionOptions.js';

/** A running bot (live or paper). */
export class RunSession {
  readonly ledger: Ledger;
  readonly bus: Bus;
  readonly startedAt: number;
  readonly #o: RunSessionOptions;
  readonly #open: OpenClient;
  readonly #legacy: LegacyClient | undefined;
  readonly #market: RunMarket;
  readonly #refs: ReferencePrices;
  readonly #tracker: OrderTracker;
  readonly #router: OrderRouter | undefined;
  readonly #sim: { venue: SimVenue; scheduler: WallScheduler } | undefined;
  readonly #user: readonly UserStream[];
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
  readonly #daily: DailyPnl;
  #stopped: Promise<RunSummary> | undefined;

  private constructor(o: RunSessionOptions, parts: {
    ledger: Ledger;
    bus: Bus;
    open: OpenClient;
    legacy: LegacyClient | undefined;
    market: RunMarket;
    refs: ReferencePrices;
    tracker: OrderTracker;
    router: OrderRouter | undefined;
    sim: { venue: SimVenue; scheduler: WallScheduler } | undefined;
    user: readonly UserStream[];
    states: TradingStateMachine;
    pipeline: Pipeline<StrategyState>;
    runner: StrategyRunner;
    names: readonly string[];
    rejections: RunRejections;
    daily: DailyPnl;
    startedAt: number;
  }) {
    this.#o = o;
    this.ledger = parts.ledger;
    this.bus = parts.bus;
    this.#open = parts.open;
    this.#legacy = parts.legacy;
    this.#market = parts.market;
    this.#refs = parts.refs;
    this.#tracker = parts.tracker;
    this.#router = parts.router;
    this.#sim = parts.sim;
    this.#user = parts.user;
    this.#states = parts.states;
    this.#pipeline = parts.pipeline;
    this.#runner = parts.runner;
    this.#strategyNames = parts.names;
    this.#rejections = parts.rejections;
    this.#daily = parts.daily;
    this.startedAt = parts.startedAt;
  }

  /** Builds and starts everything; resolves when strategies are running. */
  static async start(o: RunSessionOptions): Promise<RunSession> {
    const { config: cfg, endpoints: ep, credentials: cr, log } = o;
    const clock = systemClock;
    const ledger = Ledger.open(cfg.storage.path);
    const startedAt = clock.now();
    const runNo = ledger.countJournal('start') + 1;
    // The run tag goes into every clientId and intentId of this run, so a restart (on this ledger
    // or another one trading the same account) never reuses the id of an order that may still be
    // live, while strategy names stay the same across restarts.
    const runTag = startedAt.toString(36);
    ledger.journal(startedAt, 'start', { mode: cfg.mode, name: cfg.name, run: runNo, runTag, pid: process.pid });
    const bus = new Bus();
    const cleanup: (() => Promise<void> | void)[] = [() => ledger.close(), () => bus.close()];
    try {
      const open = new OpenClient({
        baseUrl: ep.base_url,
        marketUrl: ep.market_url,
        depthUrl: ep.depth_url ?? ep.market_url,
        ...(cr.apiKey !== undefined ? { apiKey: cr.apiKey } : {}),
        ...(cr.apiSecret !== undefined ? { apiSecret: cr.apiSecret } : {}),
        recvWindow: cfg.exchange?.recvWindow ?? 5000,
        timeoutMs: cfg.exchange?.timeoutMs ?? 10_000,
        ...(cfg.exchange?.weightLimits ? { weightLimits: cfg.exchange.weightLimits } : {}),
      });
      cleanup.push(() => open.close());
      // A start during a ban, a maintenance or a lost answer waits it out (bounded) instead of exiting at once.
      const onRetry = (what: string, err: Error, waitMs: number): void => log.warn({ err: err.message, waitMs }, `start-up: ${what} failed for now; asking again`);
      // One bound (run.startupWaitSec) for every start-up step; past it the run fails naming the step.
      const startDeadline = clock.now() + cfg.run.startupWaitSec * 1000;
      const step = <T>(what: string, fn: () => Promise<T>): Promise<T> =>
        retryStartup(what, fn, { onRetry, boundMs: Math.max(0, startDeadline - clock.now()) }).catch((err: unknown) => {
          if (transientWaitMs(err, 0) === undefined) throw err;
          throw new StateError(`could not start: ${what} still failing after ${Math.round((clock.now() - startedAt) / 1000)} s of retries (${err instanceof Error ? err.message : String(err)})`, { cause: err });
        });
      await step('server time', () => open.syncTime());
      const symbols = await step('symbols', () => strategySymbols(open, cfg));
      // Trade and reference-price times are the exchange's: windows and ages are measured on its clock.
      const exchangeNow = (): number => clock.now() + open.timeOffsetMs;
      let engine: MatchingEngine | undefined;
      // PRICE_RANGE rules and reference prices before the gate and the paper engine are built.
      const refs = new ReferencePrices({
        symbols,
        source: open,
        now: exchangeNow,
        log: log.child({ part: 'referencePrice' }),
        // Options (tests) over the config's exchange section; without either, the class's defaults.
        ...optional('refreshMs', o.referencePrice?.refreshMs ?? cfg.exchange?.referencePriceRefreshMs),
        ...optional('maxAgeMs', o.referencePrice?.maxAgeMs ?? cfg.exchange?.referencePriceMaxAgeMs),
        // Paper fills expire outside the range as live ones do.
        onPrice: (symbol, price) => engine?.setReferencePrice(symbol, price, clock.now()),
      });
      cleanup.push(() => refs.stop());
      await refs.start();
      const ranges = new Map(refs.priceRanges.map((r) => [r.symbol, r]));
      const exchangeFilters = parseExchangeFilters(cfg.exchangeFilters, 'exchangeFilters');
      const averages = new AveragePrices({ symbols, source: open, now: exchangeNow, log: log.child({ part: 'avgPrice' }) });

      const infoOf = new Map(symbols.map((s) => [s.symbol, s]));
      const tracker = new OrderTracker({ ledger, clock, emit: (e) => bus.publish(e), symbolInfo: (s) => infoOf.get(s), log: log.child({ part: 'tracker' }) });
      // Every change of the run-wide state is journalled (halts with their duration), then published.
      const stateJournal = new TradingStateJournal(ledger);
      const states = new TradingStateMachine({ onChange: (e) => (stateJournal.record(e), bus.publish(e)) });
      // The account's balances from every source (stream, REST, simulator), recorded when they change.
      const balances = new LiveBalances(ledger, () => clock.now());
      let router: OrderRouter | undefined;
      let legacy: LegacyClient | undefined;
      let sim: { venue: SimVenue; scheduler: WallScheduler; shown: ShownOwnOrders } | undefined;
      let user: readonly UserStream[] = [];

      if (cfg.mode === 'live') {
        if (!cr.apiKey || !cr.apiSecret) throw new ConfigError(cfg.file, 'mode', 'live', 'live mode needs KANCIL_API_KEY and KANCIL_API_SECRET in the environment');
        if (ep.legacy_base_url && cr.legacyKey && cr.legacySecret) {
          legacy = new LegacyClient({ baseUrl: ep.legacy_base_url, apiKey: cr.legacyKey, apiSecret: cr.legacySecret, timeoutMs: cfg.exchange?.timeoutMs ?? 10_000, nonceStore: cfg.storage.path === ':memory:' ? new TimeNonceStore(clock) : `${cfg.storage.path}.nonce` });
          const l = legacy;
          cleanup.push(() => l.close());
        }
        // The WebSocket API address the exchange publishes, when the config names none.
        const wsApiUrl = ep.ws_api_url ?? (symbols.some((s) => s.type === 1) ? await discoverWsApiUrl(open, log) : undefined);
        const chosen = userStreams({ ...ep, ...(wsApiUrl !== undefined ? { ws_api_url: wsApiUrl } : {}) }, open, symbols, log);
        user = chosen.streams;
        // Orders of the other symbol types (type 2 has no user stream at all) are polled instead.
        const unstreamed = symbols.filter((s) => !chosen.covers.has(s.type as 1 | 3)).map((s) => s.symbol);
        if (unstreamed.length > 0) log.info({ symbols: unstreamed }, 'no user data stream reports these symbols; their orders are polled');
        router = new OrderRouter({
          open: openPort(open),
          ...(legacy ? { legacy: legacyPort(legacy) } : {}),
          tracker,
          ledger,
          clock,
          log: log.child({ part: 'router' }),
          symbols: symbols.map((s) => s.symbol),
          symbolInfo: new Map(symbols.map((s) => [s.symbol, s])),
          settleMs: settleMsOf(cfg),
          unstreamedSymbols: unstreamed,
          timeOffsetMs: () => open.timeOffsetMs,
          ...optional('pollMs', o.router?.pollMs),
          ...optional('cancelRetryMs', o.router?.cancelRetryMs),
          onBalances: (b) => balances.update(BalanceSource.REST, b, true),
        });
        const r = router;
        const streams = user;
        cleanup.push(() => r.stop(), async () => {
          for (const u of streams) await u.close();
        });
        for (const u of user) {
          bus.attach(u.events$);
          bus.attach(u.status$);
        }
      } else {
        const paper = paperVenue({ cfg, bus, clock, symbols, ranges, referencePrice: (s) => refs.referencePrice(s), exchangeFilters });
        engine = paper.engine;
        sim = paper;
        balances.update(BalanceSource.SIM, paper.venue.balances(), true);
        cleanup.push(() => paper.scheduler.cancelAll());
      }

      // Paper: our orders in the engine, as the depth stream would show them (ShownOwnOrders.ts).
      const shown = sim?.shown;
      const market = new RunMarket({
        bus,
        hosts: { stream_url: ep.stream_url, ...(ep.stream_url_next ? { stream_url_next: ep.stream_url_next } : {}), ...(ep.stream_url_new ? { stream_url_new: ep.stream_url_new } : {}) },
        symbols,
        snapshots: open,
        log,
        ...(engine ? { engine } : {}),
        klines: klineSubscriptions(cfg.strategies.flatMap((s) => {
          const plugin = o.plugins.get(s.name);
          return plugin ? [{ plugin, params: s.params, symbols: s.symbols }] : [];
        })),
        averages,
        now: () => clock.now(),
        ...(shown ? { onDepth: (s: string) => shown.flush(s) } : {}),
      });
      cleanup.push(() => market.close());
      market.start();
      for (const u of user) u.start();

      // Daily PnL for the loss limit, from every new fill (the tracker emits each fill once).
      const daily = new DailyPnl();
      // Live: the fills earlier runs recorded today count against today's loss limit (a restart
      // must not give a strategy a fresh limit); the ones start-up reconciliation finds arrive on the bus.
      if (cfg.mode === 'live') for (const f of ledger.fills()) daily.add(clock.now(), { ...f, E: f.time });
      const dailySub = bus.events$.subscribe((e) => {
        if (e.type === 'fill') daily.add(clock.now(), e);
      });
      cleanup.push(() => dailySub.unsubscribe());
      const venue = router ?? new TrackedVenue((sim as { venue: SimVenue }).venue, tracker);
      const pipeline = createPipeline<StrategyState>({
        bus,
        venue,
        risk: riskGate({
          symbols,
          config: cfg.risk,
          states,
          now: () => clock.now(),
          book: (s) => market.book(s),
          lastPrice: (s) => market.lastPrice(s),
          avgPrice: (s, mins) => averages.avgPrice(s, mins),
          referencePrice: (s) => refs.referencePrice(s),
          priceRanges: refs.priceRanges,
          exchangeFilters,
          // As the exchange counts them: the account's open orders this bot did not place count too.
          liveOrders: () => (router && router.untrackedOpenOrders.length > 0 ? [...tracker.liveOrders(), ...router.untrackedOpenOrders] : tracker.liveOrders()),
          dailyPnl: (strategy) => daily.of(strategy, clock.now(), (s) => market.mark(s)),
          strategyConfig: (name) => cfg.strategies.find((s) => s.name === name)?.risk,
        }),
        clock,
        log,
        ledger,
        router: router ?? (venue as TrackedVenue),
        // The trading-state machine is the one publisher of tradingState events in a run.
        publishTradingState: false,
        onReconciled: () => states.reconciled(clock.now()),
      });
      // Trading-state inputs: books, user-stream connections, reconcile requests.
      const stateSub = bus.events$.subscribe((e) => {
        if (e.type !== 'tradingState') states.onEvent(e);
      });
      cleanup.push(() => stateSub.unsubscribe(), () => pipeline.stop());
      pipeline.start();

      if (router) {
        const r = router;
        const unknown = await step('start-up reconciliation', () => r.recover());
        const earlier = tracker.liveOrders();
        if (earlier.length > 0) {
          // Adopted below by the strategy of the same name (its own book shows them); an order of a
          // strategy no longer configured stays on the book until it fills or shutdown cancels it.
          log.warn({ orders: earlier.map((e) => ({ clientId: e.clientId, strategy: e.strategy, state: e.state })) }, 'live orders of an earlier run are still open');
        }
        if (unknown.length > 0) log.warn({ unknown: unknown.map((u) => u.clientId) }, 'orders still of unknown outcome after start-up reconciliation; the poll loop keeps resolving them');
        router.start();
      } else {
        const closed = (venue as TrackedVenue).recover();
        if (closed.length > 0) log.warn({ orders: closed.map((c) => c.clientId) }, 'orders an earlier paper run left open were closed (its simulator is gone)');
      }
      await market.whenReady(o.bookReadyTimeoutMs ?? 15_000).catch((err: unknown) => log.warn({ err: (err as Error).message }, 'starting before every book is ready (orders are halted per symbol until it is)'));
      // The trade windows are filled from REST once the streams are connected (ready books mean
      // they are), so no trade falls between the REST answer and the first stream trade; stream
      // trades that arrived meanwhile are held back and joined by trade id. Strategies start after.
      await averages.warmUp();

      const specs: StrategySpec[] = cfg.strategies.map((s) => {
        const plugin = o.plugins.get(s.name);
        if (!plugin) throw new ConfigError(cfg.file, 'strategies', s.name, 'plugin not loaded');
        return { name: s.name, plugin, params: s.params, symbols: s.symbols, budget: Object.fromEntries(Object.entries(s.budget).map(([k, v]) => [k, new Decimal(v)])) };
      });
      const runner = new StrategyRunner(specs, {
        bus,
        clock,
        venue: pipeline.venue,
        // Paper: the engine holds our orders, the streamed book does not; live, the exchange's does.
        books: shown ? booksWithOwnOrders((s) => market.book(s), (s) => shown.orders(s)) : (s) => market.book(s),
        gate: pipeline.gate,
        symbolFilters: (s) => symbols.find((i) => i.symbol === s)?.filters,
        runTag,
        log: log.child({ part: 'strategy' }),
        onFailure: (name, err) => ledger.journal(clock.now(), 'strategyFailed', { strategy: name, err: err instanceof Error ? err.message : String(err) }),
      });
      // Live: each strategy starts from what its earlier runs left on the account (the same name
      // across restarts): their fills in its position and budget, their live orders as its own.
      // Starting flat, an inventory-limited strategy would buy its inventory again after every
      // restart, and a budget would be spent once per run. Paper runs start a fresh simulator.
      const carried = cfg.mode === 'live' ? ledger.fills().filter((f) => runner.names.includes(f.strategy)) : [];
      for (const f of carried) runner.book(f.strategy).fill(fillEventOf(f));
      if (cfg.mode === 'live') for (const o of tracker.liveOrders()) if (runner.names.includes(o.strategy)) runner.book(o.strategy).update(orderUpdateOf(o));
      if (router) checkBudgets(cfg.file, cfg.strategies.map((s) => ({ name: s.name, budget: s.budget, free: (asset: string) => runner.book(s.name).free(asset) })), router.balances);
      // Counted from before the start: a strategy's onStart may already send refused intents.
      const rejections = new RunRejections(runner.names, (id, intentId) => ledger.order(id)?.intentId === intentId);
      cleanup.push(bus.listen((e) => rejections.onEvent(e)));
      runner.start();
      // Risk rejections queued while a handler ran are published after each bus event.
      const flushSub = bus.events$.subscribe(() => runner.flush());
      cleanup.push(() => flushSub.unsubscribe());
      runner.flush();

      const session = new RunSession(o, { ledger, bus, open, legacy, market, refs, tracker, router, sim, user, states, pipeline, runner, names: runner.names, rejections, daily, startedAt });
      const stopBalances = followBalances({ bus, balances, log, source: router ? BalanceSource.STREAM : BalanceSource.SIM, ...(router ? { refresh: () => (router as OrderRouter).refreshBalances() } : {}) });
      const account = (session.#account = new RunAccount(ledger, balances, cfg.strategies.flatMap((x) => x.symbols), (x) => market.mark(x)));
      const stopWatch = watchExchange({ bus, states, ledger, clock, log, probe: () => open.time(), silenceMs: cfg.run.exchangeSilenceSec * 1000, live: cfg.mode === 'live' });
      session.#subs.push(stateSub, flushSub, dailySub, { unsubscribe: stopWatch }, { unsubscribe: stopBalances });
      const mine = new Set(session.#strategyNames);
      for (const f of carried) addFill(session.#books, f);
      session.#subs.push(bus.events$.subscribe((e) => {
        if (e.type === 'fill' && mine.has(e.strategy)) addFill(session.#books, e);
      }));
      if (cfg.run.timerMs > 0 && [...o.plugins.values()].some(readsTimer)) session.#every(cfg.run.timerMs, () => bus.publish({ type: 'timer', E: clock.now() }));
      session.#every(cfg.run.statusIntervalSec * 1000, () => log.info(session.status(), 'status'));
      session.#every(60_000, () => account.journalMarks(clock.now()));
      // Clocks drift and get stepped (NTP, a suspended VM): with a stale offset every signed
      // request falls outside the recvWindow and is refused, and the unknown-outcome settle rule
      // (absent after recvWindow + 1 s means never placed) would rest on a wrong timestamp.
      session.#every(o.timeSyncMs ?? 600_000, () => {
        open.syncTime().catch((err: unknown) => log.warn({ err: err instanceof Error ? err.message : String(err) }, 'server time sync failed; keeping the last offset'));
      });
      log.info({ mode: cfg.mode, run: runNo, runTag, strategies: session.#strategyNames, symbols: symbols.map((s) => s.symbol) }, 'running');
      return session;
    } catch (err) {
      for (const c of cleanup.reverse()) {
        try {
          await c();
        } catch {
          // Best effort: the original error is what the user needs to see.
        }
      }
      throw err;
    }
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
    return { config: this.#o.config, tracker: this.#tracker, market: this.#market, router: this.#router, sim: this.#sim?.venue, states: this.#states, runner: this.#runner, pipeline: this.#pipeline, books: this.#books, rateLimits: this.#open.rateLimits, balances: () => this.#account?.balances() ?? [], equity: () => this.#account?.equity(), dailyPnl: (strategy) => this.#daily.of(strategy, systemClock.now(), (s) => this.#market.mark(s)), clockOffsetMs: () => this.#open.timeOffsetMs };
  }

  /** Operator command: sets the trading state floor (HALTED: only cancels pass; REDUCING: only exposure-reducing orders). */
  setTradingState(state: TradingStateName, reason: string): void {
    this.#states.command(state, reason, systemClock.now());
    this.ledger.journal(systemClock.now(), 'operator', { state, reason });
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
    this.#account?.journalMarks(systemClock.now());
    const summary = runSummary(this.ledger, this.#strategyNames, (s) => this.#market.mark(s), reason, this.startedAt, systemClock.now(), this.#runner.failures, ordersLeft, this.#rejections.byStrategy());
    this.#pipeline.stop();
    await this.#router?.stop();
    for (const s of this.#subs) s.unsubscribe();
    for (const u of this.#user) await u.close();
    this.#refs.stop();
    await this.#market.close();
    this.#sim?.scheduler.cancelAll();
    await this.#open.close();
    await this.#legacy?.close();
    this.ledger.journal(systemClock.now(), 'stop', { reason });
    this.bus.close();
    this.ledger.close();
    return summary;
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
    const t = setInterval(fn, ms);
    t.unref();
    this.#timers.push(t);
  }
}
