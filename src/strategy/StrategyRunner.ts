/**
 * Runs strategy plugins on the bus. Each strategy gets only the events of its symbols (market
 * data, book status), its own order events (orderUpdate, fill, intentRejected) and the run-wide
 * timer and tradingState events. Its context places and cancels by emitting intents with
 * deterministic clientIds to a sink (the risk gate and venue). A plugin that throws is stopped,
 * logged and reported, its open orders are cancelled (by default), and the others keep running.
 *
 * Events that arrive while a strategy is being called (a venue answering synchronously) are
 * queued and delivered after the call returns, so every strategy sees events one at a time and
 * in bus order: the same events give the same intents.
 */
import type { Subscription } from 'rxjs';
import type { Bus } from '../bus/Bus.js';
import type { BusEvent } from '../bus/events.js';
import type { Intent, PlaceIntent } from '../bus/intents.js';
import type { BookView } from '../core/bookView.js';
import type { Clock } from '../core/clock.js';
import type { Decimal } from '../core/decimal.js';
import { ClientIdSequence } from './clientIds.js';
import { validateParams } from './params.js';
import { StrategyBook } from './StrategyBook.js';
import type { OwnOrderView, PlaceRequest, StrategyContext, StrategyHandlers, StrategyLogger, StrategyPlugin } from './types.js';

/** One strategy of a run, with validated parameters. */
export interface StrategySpec {
  /** Unique in the run; 1 to 16 of [A-Za-z0-9_-]; prefixes its clientIds. */
  readonly name: string;
  readonly plugin: StrategyPlugin;
  /** Parameters (validated again with the plugin's schema at start). */
  readonly params: unknown;
  readonly symbols: readonly string[];
  /** Starting budget per asset. */
  readonly budget: Readonly<Record<string, Decimal>>;
}

/** Why and when a strategy was stopped. */
export interface StrategyFailure {
  readonly strategy: string;
  readonly phase: 'start' | 'event' | 'stop';
  readonly error: unknown;
  readonly time: number;
}

/** Options of the runner. */
export interface StrategyRunnerOptions {
  readonly bus: Bus;
  readonly clock: Clock;
  /** Local books by symbol (undefined when none is kept). */
  readonly books: (symbol: string) => BookView | undefined;
  /** Receives every intent, in order (risk gate, then venue). */
  readonly sink: (intent: Intent) => void;
  /** A logger per strategy (e.g. a pino child with { strategy }). */
  readonly logger: (strategy: string) => StrategyLogger;
  /** Called once per failed strategy. */
  readonly onFailure?: (failure: StrategyFailure) => void;
  /** Cancel a failed strategy's open orders (default true). */
  readonly cancelOnFailure?: boolean;
  /** Distinguishes this run's clientIds from earlier runs on the same account ('' for none). */
  readonly runTag?: string;
}

const SYMBOL_EVENTS = new Set(['trade', 'aggTrade', 'kline', 'miniTicker', 'depthDiff', 'partialDepth', 'bookTicker', 'bookStatus']);
const OWN_EVENTS = new Set(['orderUpdate', 'fill', 'intentRejected']);
const BROADCAST = new Set(['timer', 'tradingState']);

/** Symbols match whatever the spelling: BTC_IDR, BTCIDR, btcidr. */
function symbolKey(s: string): string {
  return s.replace(/_/g, '').toUpperCase();
}

class Running {
  readonly book: StrategyBook;
  readonly ids: ClientIdSequence;
  readonly symbolKeys: ReadonlySet<string>;
  handlers: StrategyHandlers | undefined;
  failed = false;
  intentSeq = 0;

  constructor(
    readonly spec: StrategySpec,
    runTag: string,
  ) {
    this.book = new StrategyBook(spec.budget);
    this.ids = new ClientIdSequence(spec.name, runTag);
    this.symbolKeys = new Set(spec.symbols.map(symbolKey));
  }

  wants(e: BusEvent): boolean {
    if (BROADCAST.has(e.type)) return true;
    if (OWN_EVENTS.has(e.type)) return (e as { strategy: string }).strategy === this.spec.name;
    if (SYMBOL_EVENTS.has(e.type)) return this.symbolKeys.has(symbolKey((e as { symbol: string }).symbol));
    return false;
  }
}

/** Hosts strategies on a bus. */
export class StrategyRunner {
  readonly #o: StrategyRunnerOptions;
  readonly #running: Running[] = [];
  readonly #byName = new Map<string, Running>();
  readonly #queue: BusEvent[] = [];
  #dispatching = false;
  #sub: Subscription | undefined;
  #started = false;

  constructor(specs: readonly StrategySpec[], options: StrategyRunnerOptions) {
    this.#o = options;
    for (const spec of specs) {
      if (this.#byName.has(spec.name)) throw new Error(`duplicate strategy name ${JSON.stringify(spec.name)}`);
      const r = new Running(spec, options.runTag ?? '');
      this.#running.push(r);
      this.#byName.set(spec.name, r);
    }
  }

  /** Names of the strategies, in configuration order. */
  get names(): string[] {
    return this.#running.map((r) => r.spec.name);
  }

  /** Strategies stopped after an error. */
  get failed(): string[] {
    return this.#running.filter((r) => r.failed).map((r) => r.spec.name);
  }

  /** One strategy's orders, positions and budget (the risk checker reads it). */
  book(strategy: string): StrategyBook {
    const r = this.#byName.get(strategy);
    if (!r) throw new Error(`unknown strategy ${JSON.stringify(strategy)}`);
    return r.book;
  }

  /** Creates every plugin instance, calls onStart, then subscribes to the bus. Call after reconciliation. */
  start(): void {
    if (this.#started) return;
    this.#started = true;
    // Subscribe first (events queue while plugins start), so nothing an onStart causes is lost.
    this.#dispatching = true;
    this.#sub = this.#o.bus.events$.subscribe((e) => this.#onEvent(e));
    try {
      for (const r of this.#running) {
        this.#guard(r, 'start', () => {
          const params = validateParams(r.spec.plugin, r.spec.params);
          if (!params.ok) {
            const i = params.issues[0];
            throw new Error(`params.${(i?.path ?? []).map(String).join('.')}=${JSON.stringify(i?.value)}: ${i?.message ?? 'invalid'}`);
          }
          r.handlers = r.spec.plugin.create(this.#context(r, params.value));
          r.handlers.onStart?.();
        });
      }
    } finally {
      this.#dispatching = false;
    }
    this.#drain();
  }

  /** Calls onStop of every live strategy and leaves the bus. */
  stop(): void {
    this.#sub?.unsubscribe();
    this.#sub = undefined;
    for (const r of this.#running) {
      if (r.failed || !r.handlers) continue;
      this.#guard(r, 'stop', () => r.handlers?.onStop?.());
    }
  }

  #onEvent(e: BusEvent): void {
    this.#queue.push(e);
    if (!this.#dispatching) this.#drain();
  }

  #drain(): void {
    if (this.#dispatching) return;
    this.#dispatching = true;
    try {
      for (let e = this.#queue.shift(); e !== undefined; e = this.#queue.shift()) {
        for (const r of this.#running) {
          if (r.failed || !r.wants(e)) continue;
          this.#apply(r, e);
          const ev = e;
          this.#guard(r, 'event', () => r.handlers?.onEvent(ev));
        }
      }
    } finally {
      this.#dispatching = false;
    }
  }

  /** Keeps the strategy's own state current before its handler sees the event. */
  #apply(r: Running, e: BusEvent): void {
    if (e.type === 'orderUpdate') r.book.update(e);
    else if (e.type === 'fill') r.book.fill(e);
    else if (e.type === 'intentRejected' && e.intent.kind === 'place') r.book.refused(e.intent.clientId);
  }

  #guard(r: Running, phase: StrategyFailure['phase'], fn: () => void): void {
    try {
      fn();
    } catch (error) {
      this.#fail(r, phase, error);
    }
  }

  #fail(r: Running, phase: StrategyFailure['phase'], error: unknown): void {
    if (r.failed) return;
    r.failed = true;
    const time = this.#o.clock.now();
    this.#o.logger(r.spec.name).error({ err: error, phase }, `strategy ${r.spec.name} failed and was stopped`);
    if ((this.#o.cancelOnFailure ?? true) && r.book.openCount() > 0) this.#o.sink({ kind: 'cancelAll', strategy: r.spec.name, intentId: this.#intentId(r) });
    this.#o.onFailure?.({ strategy: r.spec.name, phase, error, time });
  }

  #intentId(r: Running): string {
    return `${r.spec.name}:${++r.intentSeq}`;
  }

  #context(r: Running, params: unknown): StrategyContext<unknown> {
    const o = this.#o;
    const name = r.spec.name;
    const check = (): void => {
      if (r.failed) throw new Error(`strategy ${name} is stopped`);
    };
    return {
      name,
      params,
      symbols: r.spec.symbols,
      clock: o.clock,
      log: o.logger(name),
      book: (symbol) => o.books(symbol),
      openOrders: (symbol?: string): readonly OwnOrderView[] => r.book.openOrders(symbol),
      balance: (asset) => r.book.balance(asset),
      position: (asset) => r.book.position(asset),
      place: (req: PlaceRequest): string => {
        check();
        const clientId = req.clientId !== undefined ? r.ids.claim(req.clientId) : r.ids.next();
        // Every intent has the same keys in the same order: one object shape downstream.
        const intent: PlaceIntent = {
          kind: 'place',
          strategy: name,
          intentId: this.#intentId(r),
          clientId,
          symbol: req.symbol,
          side: req.side,
          orderType: req.orderType,
          timeInForce: req.timeInForce,
          quantity: req.quantity,
          quoteOrderQty: req.quoteOrderQty,
          price: req.price,
          stopPrice: req.stopPrice,
          icebergQty: req.icebergQty,
          stpMode: req.stpMode,
        };
        r.book.placed(intent, o.clock.now());
        o.sink(intent);
        return clientId;
      },
      cancel: (symbol, clientId) => {
        check();
        o.sink({ kind: 'cancel', strategy: name, intentId: this.#intentId(r), symbol, clientId });
      },
      cancelAll: (symbol?: string) => {
        check();
        o.sink(symbol === undefined ? { kind: 'cancelAll', strategy: name, intentId: this.#intentId(r) } : { kind: 'cancelAll', strategy: name, intentId: this.#intentId(r), symbol });
      },
    };
  }
}
