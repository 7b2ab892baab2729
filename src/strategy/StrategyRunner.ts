/**
 * Runs strategy plugins on the bus, the same way in live, paper and backtest runs: builds each
 * plugin's context (clock, books, own open orders, positions, budget), routes to it the events it
 * may see, and passes its intents through a gate (the risk checker) to the venue. A plugin that
 * throws is stopped, logged and reported, its open orders are cancelled (by default), and the
 * others keep running.
 *
 * Routing: market events (of the types the plugin names in `marketEvents`, default all) and book
 * status of the strategy's symbols (BTC_IDR, BTCIDR and btcidr
 * name the same symbol); its own orderUpdate, fill and intentRejected events; timers and
 * trading-state changes. Nothing else, so a strategy cannot observe another strategy's orders.
 *
 * Events that arrive while a strategy is being called (a venue or tracker publishing
 * synchronously) are queued and delivered after the call returns, so every strategy sees events
 * one at a time and in bus order: the same events give the same intents.
 *
 * clientIds are `${name}-${seq}`, or `${name}-${runTag}-${seq}` with a run tag (live and paper
 * use one per run, so a restart never reuses the clientId of an order that may still be live,
 * while strategy names stay stable across restarts; backtests use none, for determinism).
 */
import type { IntentDecision } from '../bus/decision.js';
import type { Bus } from '../bus/Bus.js';
import type { BusEvent } from '../bus/events.js';
import type { Intent, PlaceIntent } from '../bus/intents.js';
import type { Venue } from '../bus/venue.js';
import type { BookView } from '../core/bookView.js';
import type { Clock } from '../core/clock.js';
import { formatDocPath } from '../core/configIssue.js';
import type { Decimal } from '../core/decimal.js';
import type { SymbolFilters } from '../core/filters.js';
import { symbolKey } from '../core/symbols.js';
import { symbolRules, type SymbolRules } from './symbolRules.js';
import { ClientIdSequence } from './clientIds.js';
import { validateParams } from './params.js';
import { StrategyBook } from './StrategyBook.js';
import { ctxPlot, type PlotSinkOf, type PlotTo } from './ctxPlot.js';
import { readsTimer, type OwnOrderView, type PlaceRequest, type StrategyContext, type StrategyHandlers, type StrategyLogger, type StrategyPlugin } from './types.js';

/** One strategy of a run. */
export interface StrategySpec {
  /** Unique in the run and stable across restarts; 1 to 16 of [A-Za-z0-9_-]; prefixes its clientIds. */
  readonly name: string;
  readonly plugin: StrategyPlugin;
  /** Raw or validated parameters; validated again with the plugin's schema at start. */
  readonly params: unknown;
  readonly symbols: readonly string[];
  /** Starting budget per asset. */
  readonly budget: Readonly<Record<string, Decimal>>;
}

/** What the gate may read about the strategy that sent an intent. */
export interface StrategyState {
  readonly name: string;
  position(asset: string): Decimal;
  free(asset: string): Decimal;
  openOrders(): readonly OwnOrderView[];
  placementsSince(t: number): number;
  /** Unfilled quantity of its open orders on a symbol side (the sum over openOrders()). */
  openQty?(symbol: string, side: 'BUY' | 'SELL'): Decimal;
  /** Number of its open orders (openOrders().length). */
  openCount?(): number;
  /** floor(free(asset) x 10^scale) when it can be had without a Decimal (+Infinity from 2^52 on), else NaN. */
  freeUnits?(asset: string, scale: number): number;
}

/** The risk gate: decides each intent before it reaches the venue. */
export type IntentGate = (intent: Intent, strategy: StrategyState) => IntentDecision;

/** Accepts everything (for tests of the plumbing only: a real run uses the risk checker). */
export const acceptAll: IntentGate = () => ({ kind: 'accept' });

/** A logger that drops everything (benchmarks, sweeps). */
export const silentLogger: StrategyLogger = { info: () => undefined, warn: () => undefined, error: () => undefined, debug: () => undefined };

/** Why and when a strategy was stopped. */
export interface StrategyFailure {
  readonly strategy: string;
  readonly phase: 'start' | 'event' | 'stop';
  /** The error's message. */
  readonly error: string;
  /** Time of the run's clock when it failed (ms). */
  readonly t: number;
}

/** Options of the runner. */
export interface StrategyRunnerOptions {
  readonly bus: Bus;
  readonly clock: Clock;
  /** Where accepted intents go (the pipeline's venue). */
  readonly venue: Venue;
  /** Local books by symbol (undefined when none is kept). */
  readonly books: (symbol: string) => BookView | undefined;
  readonly gate: IntentGate;
  readonly log: StrategyLogger;
  /** The exchange filters of a symbol (for `ctx.rules`); a symbol without any gets rules that round nothing. */
  readonly symbolFilters?: (symbol: string) => SymbolFilters | undefined;
  /** Takes the values strategies plot (`ctx.plot`): a backtest charts them; live and paper runs drop them. */
  readonly plot?: PlotTo;
  /** With `plot`: the sink of one overlay series (a plot without options), asked once per series (ctxPlot.ts). */
  readonly plotSink?: PlotSinkOf;
  /** Called once when a plugin throws and is stopped. */
  readonly onFailure?: (strategy: string, err: unknown) => void;
  /** Cancel a failed strategy's open orders (default true): nobody manages them any more. */
  readonly cancelOnFailure?: boolean;
  /** Distinguishes this run's clientIds and intentIds from earlier runs on the same account ('' for none). */
  readonly runTag?: string;
}

const NO_ORDERS: readonly OwnOrderView[] = Object.freeze([]);

/** `T` with its readonly fields writable (an intent while it is being built). */
type Mutable<T> = { -readonly [K in keyof T]: T[K] };

class Running implements StrategyState {
  readonly name: string;
  /** Configured spelling of each symbol, by symbolKey(). */
  readonly symbols: ReadonlyMap<string, string>;
  /** Configured spelling of each symbol, by itself. */
  readonly spelled: ReadonlyMap<string, string>;
  readonly book: StrategyBook;
  readonly ids: ClientIdSequence;
  /** Event types delivered by symbol when the plugin names its market events (book status always); undefined: all. */
  readonly reads: ReadonlySet<string> | undefined;
  /** Whether timer events are delivered to it (StrategyPlugin.timer). */
  readonly readsTimer: boolean;
  handlers: StrategyHandlers | undefined;
  failed = false;
  intentSeq = 0;

  constructor(
    readonly spec: StrategySpec,
    runTag: string,
  ) {
    this.name = spec.name;
    this.symbols = new Map(spec.symbols.map((sym) => [symbolKey(sym), sym]));
    this.spelled = new Map([...this.symbols.values()].map((sym) => [sym, sym]));
    this.book = new StrategyBook(spec.budget);
    this.ids = new ClientIdSequence(spec.name, runTag);
    const wanted = spec.plugin.marketEvents;
    this.reads = wanted === undefined ? undefined : new Set<string>([...wanted, 'bookStatus']);
    this.readsTimer = readsTimer(spec.plugin);
  }

  position(asset: string): Decimal {
    return this.book.position(asset);
  }

  free(asset: string): Decimal {
    return this.book.free(asset);
  }

  openOrders(): readonly OwnOrderView[] {
    return this.book.openCount() === 0 ? NO_ORDERS : this.book.openOrders();
  }

  placementsSince(t: number): number {
    return this.book.placementsSince(t);
  }

  openQty(symbol: string, side: 'BUY' | 'SELL'): Decimal {
    return this.book.openQty(symbol, side);
  }

  openCount(): number {
    return this.book.openCount();
  }

  freeUnits(asset: string, scale: number): number {
    return this.book.freeUnits(asset, scale);
  }

  /** The configured spelling of `symbol` when the strategy trades it. */
  symbolOf(symbol: string): string | undefined {
    // Strategies place and read books by the configured spelling almost always: a map read, no
    // regex; other spellings are normalised.
    return this.spelled.get(symbol) ?? this.symbols.get(symbolKey(symbol));
  }

  /** Unique in the run and, with a run tag, across runs (the ledger keys intents by it). */
  intentId(): string {
    return `${this.ids.prefix}:${++this.intentSeq}`;
  }
}

/** Hosts strategies on a bus. `start()` creates and starts them; `stop()` stops them. */
export class StrategyRunner {
  readonly #o: StrategyRunnerOptions;
  readonly #running: Running[] = [];
  readonly #byName = new Map<string, Running>();
  /** Strategies by symbol, under both the configured spelling and symbolKey(). */
  readonly #bySymbol = new Map<string, Running[]>();
  /** The symbol of the last market event routed and its strategies (#toSymbol). */
  #lastSymbol: string | undefined;
  #lastList: Running[] | undefined;
  readonly #queue: BusEvent[] = [];
  /** Risk rejections, published by flush() once the bus event that caused them is done. */
  readonly #pending: BusEvent[] = [];
  #dispatching = false;
  /** Leaves the bus (set while subscribed). */
  #unlisten: (() => void) | undefined;
  #started = false;
  /** Strategies stopped after an error, in the order they failed. */
  readonly failures: StrategyFailure[] = [];

  constructor(specs: readonly StrategySpec[], options: StrategyRunnerOptions) {
    this.#o = options;
    for (const spec of specs) {
      if (this.#byName.has(spec.name)) throw new RangeError(`duplicate strategy name ${JSON.stringify(spec.name)}`);
      const r = new Running(spec, options.runTag ?? '');
      this.#running.push(r);
      this.#byName.set(spec.name, r);
      for (const sym of new Set([...spec.symbols, ...spec.symbols.map(symbolKey)])) {
        let l = this.#bySymbol.get(sym);
        if (!l) this.#bySymbol.set(sym, (l = []));
        l.push(r);
      }
    }
  }

  /** Names of the strategies, in configuration order. */
  get names(): string[] {
    return this.#running.map((r) => r.name);
  }

  /** Strategies stopped after an error. */
  get failed(): string[] {
    return this.#running.filter((r) => r.failed).map((r) => r.name);
  }

  /** One strategy's orders, positions and budget. */
  book(strategy: string): StrategyBook {
    const r = this.#byName.get(strategy);
    if (!r) throw new RangeError(`unknown strategy ${JSON.stringify(strategy)}`);
    return r.book;
  }

  /**
   * Validates every strategy's parameters (a bad one throws before any plugin is created: a
   * configuration error must stop the run before anything trades), then creates each plugin,
   * calls onStart and subscribes to the bus. Call after reconciliation.
   */
  start(): void {
    if (this.#started) return;
    const params = this.#running.map((r) => {
      const p = validateParams(r.spec.plugin, r.spec.params);
      if (p.ok) return p.value;
      const i = p.issues[0];
      throw new RangeError(`strategy ${r.name}: ${formatDocPath(['params', ...(i?.path ?? [])])}=${JSON.stringify(i?.value)}: ${i?.message ?? 'invalid'}`);
    });
    this.#started = true;
    // Subscribe first (events queue while plugins start), so nothing an onStart causes is lost.
    // A plain bus listener, not events$: an RxJS subscriber costs its bookkeeping on every event,
    // and the runner's own errors are caught per plugin (#deliver) rather than left to RxJS.
    this.#dispatching = true;
    this.#unlisten = this.#o.bus.listen((e) => this.#onEvent(e));
    try {
      this.#running.forEach((r, i) =>
        this.#guard(r, 'start', () => {
          r.handlers = r.spec.plugin.create(this.#context(r, params[i]));
          r.handlers.onStart?.();
        }),
      );
    } finally {
      this.#dispatching = false;
    }
    this.#drain();
  }

  /** Calls onStop of every running plugin and leaves the bus. */
  stop(): void {
    this.#unlisten?.();
    this.#unlisten = undefined;
    for (const r of this.#running) if (!r.failed && r.handlers) this.#guard(r, 'stop', () => r.handlers?.onStop?.());
  }

  /** Publishes risk rejections queued while a handler ran; call after each bus event (the replay and the session do). */
  flush(): void {
    // Called after every replayed event; almost always nothing is waiting.
    if (this.#pending.length === 0) return;
    for (let e = this.#pending.shift(); e !== undefined; e = this.#pending.shift()) this.#o.bus.publish(e);
  }

  #onEvent(e: BusEvent): void {
    if (this.#dispatching) {
      this.#queue.push(e);
      return;
    }
    this.#dispatching = true;
    try {
      this.#route(e);
    } finally {
      this.#dispatching = false;
    }
    if (this.#queue.length > 0) this.#drain();
  }

  #drain(): void {
    if (this.#dispatching) return;
    this.#dispatching = true;
    try {
      for (let e = this.#queue.shift(); e !== undefined; e = this.#queue.shift()) this.#route(e);
    } finally {
      this.#dispatching = false;
    }
  }

  #route(e: BusEvent): void {
    switch (e.type) {
      // The bulk of a replay first: cases are compared in order, the rest of the market events
      // are the default.
      case 'kline':
      case 'depthDiff':
      case 'trade':
        this.#toSymbol(e.symbol, e);
        return;
      case 'orderUpdate':
      case 'fill':
      case 'intentRejected': {
        const r = this.#byName.get(e.strategy);
        if (r === undefined) return;
        this.#apply(r, e);
        this.#deliver(r, e);
        return;
      }
      case 'timer':
        for (const r of this.#running) if (r.readsTimer) this.#deliver(r, e);
        return;
      case 'tradingState':
        for (const r of this.#running) this.#deliver(r, e);
        return;
      case 'connection':
      case 'reconcileNeeded':
      case 'accountPosition':
      case 'streamTerminated':
      case 'executionReport':
        return;
      default:
        this.#toSymbol(e.symbol, e);
    }
  }

  /** Delivers a market event or book status to the strategies trading its symbol. */
  #toSymbol(symbol: string, e: BusEvent): void {
    // Market data nearly always comes for the symbol of the event before: no map read for it.
    let l = this.#lastList;
    if (symbol !== this.#lastSymbol) {
      l = this.#bySymbol.get(symbol) ?? this.#bySymbol.get(symbolKey(symbol));
      this.#lastSymbol = symbol;
      this.#lastList = l;
    }
    if (l === undefined) return;
    for (let i = 0; i < l.length; i++) {
      const r = l[i] as Running;
      if (r.reads === undefined || r.reads.has(e.type)) this.#deliver(r, e);
    }
  }

  /** Keeps the strategy's own state current before its handler sees the event. */
  #apply(r: Running, e: BusEvent): void {
    if (e.type === 'orderUpdate') r.book.update(e);
    else if (e.type === 'fill') r.book.fill(e);
    else if (e.type === 'intentRejected' && e.intent.kind === 'place') r.book.refused(e.intent.clientId);
  }

  #deliver(r: Running, e: BusEvent): void {
    if (r.failed || r.handlers === undefined) return;
    // Inline try/catch rather than #guard: no closure per event on the hot path.
    try {
      r.handlers.onEvent(e);
    } catch (err) {
      this.#fail(r, 'event', err);
    }
  }

  #guard(r: Running, phase: StrategyFailure['phase'], fn: () => void): void {
    try {
      fn();
    } catch (err) {
      this.#fail(r, phase, err);
    }
  }

  #fail(r: Running, phase: StrategyFailure['phase'], err: unknown): void {
    if (r.failed) return;
    r.failed = true;
    const error = err instanceof Error ? err.message : String(err);
    this.failures.push({ strategy: r.name, phase, error, t: this.#o.clock.now() });
    this.#o.log.error({ strategy: r.name, phase, err: error }, 'strategy failed and was stopped');
    if ((this.#o.cancelOnFailure ?? true) && r.book.openCount() > 0) this.#submit(r, { kind: 'cancelAll', strategy: r.name, intentId: r.intentId() });
    try {
      this.#o.onFailure?.(r.name, err);
    } catch (e) {
      // A run journals the failure: on a full disk that throws, and from stop() it would end the
      // run's stop before its orders are cancelled. The run's ledger reports the write itself.
      this.#o.log.error({ strategy: r.name, err: e instanceof Error ? e.message : String(e) }, 'could not record the strategy failure');
    }
  }

  #submit(r: Running, intent: Intent): void {
    const d = this.#o.gate(intent, r);
    if (d.kind === 'reject') {
      // Delivered after the bus event being handled is done (see flush).
      this.#pending.push({ type: 'intentRejected', E: this.#o.clock.now(), strategy: r.name, intent, reason: d.reason, message: d.message });
      return;
    }
    const sent = d.kind === 'adjust' ? d.intent : intent;
    // Booked as PENDING once accepted (not before: the check must not see the order itself), so
    // the strategy sees its own order before any venue answer.
    if (sent.kind === 'place') r.book.placed(sent, this.#o.clock.now());
    try {
      this.#o.venue.submit(sent);
    } catch (err) {
      // The venue could not take it (a live router whose journal write failed): nothing was sent.
      // Refused like a risk rejection, so the strategy keeps no order that does not exist and is
      // not stopped for a fault that is not its own.
      const message = err instanceof Error ? err.message : String(err);
      this.#o.log.error({ strategy: r.name, intentId: sent.intentId, err: message }, 'venue did not take the intent');
      if (sent.kind === 'place') r.book.refused(sent.clientId);
      this.#pending.push({ type: 'intentRejected', E: this.#o.clock.now(), strategy: r.name, intent: sent, reason: 'SUBMIT_FAILED', message });
    }
  }

  #context(r: Running, params: unknown): StrategyContext<unknown> {
    const o = this.#o;
    const name = r.name;
    const check = (): void => {
      if (r.failed) throw new Error(`strategy ${name} is stopped`);
    };
    const rules = new Map<string, SymbolRules>();
    return {
      name,
      params,
      symbols: r.spec.symbols,
      clock: o.clock,
      log: strategyLog(o.log, name),
      plot: ctxPlot(name, r.spec.symbols[0] ?? '', o.plot, o.plotSink),
      rules: (symbol) => {
        const own = r.symbolOf(symbol);
        if (own === undefined) throw new RangeError(`strategy ${name} does not trade ${symbol}`);
        let x = rules.get(own);
        if (x === undefined) rules.set(own, (x = symbolRules(own, o.symbolFilters?.(own))));
        return x;
      },
      book: (symbol) => {
        const own = r.symbolOf(symbol);
        return own === undefined ? undefined : o.books(own);
      },
      openOrders: (symbol?: string) => (r.book.openCount() === 0 ? NO_ORDERS : r.book.openOrders(symbol)),
      balance: (asset) => r.book.balance(asset),
      position: (asset) => r.book.position(asset),
      place: (req: PlaceRequest): string => {
        check();
        const symbol = r.symbolOf(req.symbol);
        if (symbol === undefined) throw new RangeError(`strategy ${name} does not trade ${req.symbol}`);
        const chosen = req.clientId;
        const clientId = chosen !== undefined ? r.ids.claim(chosen) : r.ids.next();
        // The configured spelling goes downstream (risk rules and the venue know symbols by it).
        // One copy of the request (an object rest pattern without clientId cost a second, ~0.2 us):
        // a request's own clientId key lands on the slot the literal already holds, so keys and
        // their order are those of { ..., clientId, ...(req without clientId), symbol }, and the
        // value is put back when the request's was undefined (claim returns a chosen id as given).
        const intent: Mutable<PlaceIntent> = { kind: 'place', strategy: name, intentId: r.intentId(), clientId, ...req, symbol };
        if (intent.clientId !== clientId) intent.clientId = clientId;
        this.#submit(r, intent);
        return clientId;
      },
      cancel: (symbol, clientId) => {
        check();
        this.#submit(r, { kind: 'cancel', strategy: name, intentId: r.intentId(), symbol, clientId });
      },
      cancelAll: (symbol?: string) => {
        check();
        this.#submit(r, symbol === undefined ? { kind: 'cancelAll', strategy: name, intentId: r.intentId() } : { kind: 'cancelAll', strategy: name, intentId: r.intentId(), symbol });
      },
    };
  }
}

/** The run's logger with the strategy's name on every line (pino's child when it is one). */
function strategyLog(log: StrategyLogger, strategy: string): StrategyLogger {
  const child = (log as { child?: (b: object) => StrategyLogger }).child;
  if (typeof child === 'function') return child.call(log, { strategy });
  const tag = (obj: object | string): object => (typeof obj === 'string' ? { strategy, msg: obj } : { strategy, ...obj });
  return {
    info: (obj, msg) => log.info(tag(obj), msg),
    warn: (obj, msg) => log.warn(tag(obj), msg),
    error: (obj, msg) => log.error(tag(obj), msg),
    debug: (obj, msg) => log.debug(tag(obj), msg),
  };
}
