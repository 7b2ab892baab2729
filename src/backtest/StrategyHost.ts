/**
 * Hosts strategy plugins on a bus for a backtest: builds each plugin's context (virtual clock,
 * books, own open orders, positions, budget), routes to it the events it may see, and passes its
 * intents through a gate (the risk checker) to the venue. A plugin that throws is stopped and
 * reported; the others keep running.
 *
 * Routing: market events and book status of the strategy's symbols; its own orderUpdate, fill and
 * intentRejected events; timers and trading-state changes. Nothing else, so a strategy cannot
 * observe another strategy's orders.
 */
import type { BusEvent } from '../bus/events.js';
import type { Bus } from '../bus/Bus.js';
import type { Intent, PlaceIntent } from '../bus/intents.js';
import type { Venue } from '../bus/venue.js';
import type { BookView } from '../core/bookView.js';
import type { Clock } from '../core/clock.js';
import { type Decimal, ZERO } from '../core/decimal.js';
import type { OwnOrderView, PlaceRequest, StrategyContext, StrategyHandlers, StrategyLogger, StrategyPlugin } from '../strategy/types.js';
import { isFinal } from './orderEvents.js';

/** One strategy of a run. */
export interface HostedStrategy {
  /** Unique name in the run (reports are keyed by it). */
  readonly name: string;
  readonly plugin: StrategyPlugin;
  /** Raw parameters from YAML; validated by the plugin's schema. */
  readonly params: unknown;
  readonly symbols: readonly string[];
  /** Starting budget per asset. */
  readonly budget: Readonly<Record<string, Decimal>>;
}

/** Verdict of the gate in front of the venue. */
export type GateDecision = { readonly kind: 'accept' } | { readonly kind: 'adjust'; readonly intent: PlaceIntent } | { readonly kind: 'reject'; readonly reason: string; readonly message: string };

/** What the gate may read about the strategy that sent an intent. */
export interface StrategyState {
  readonly name: string;
  position(asset: string): Decimal;
  free(asset: string): Decimal;
  openOrders(): readonly OwnOrderView[];
  placementsSince(t: number): number;
}

/** The risk gate: decides each intent before it reaches the venue. */
export type IntentGate = (intent: Intent, strategy: StrategyState) => GateDecision;

/** Accepts everything (for tests of the plumbing only: a real run uses the risk checker). */
export const acceptAll: IntentGate = () => ({ kind: 'accept' });

/** Options of the host. */
export interface StrategyHostOptions {
  readonly bus: Bus;
  readonly clock: Clock;
  readonly venue: Venue;
  readonly books: (symbol: string) => BookView | undefined;
  readonly gate: IntentGate;
  readonly log: StrategyLogger;
  /** Called once when a plugin throws and is stopped. */
  readonly onFailure?: (strategy: string, err: unknown) => void;
}

const NO_ORDERS: readonly OwnOrderView[] = Object.freeze([]);

/** A logger that drops everything (benchmarks, sweeps). */
export const silentLogger: StrategyLogger = { info: () => undefined, warn: () => undefined, error: () => undefined, debug: () => undefined };

class Hosted implements StrategyState {
  readonly name: string;
  readonly symbols: ReadonlySet<string>;
  handlers: StrategyHandlers | undefined;
  failed = false;
  readonly orders = new Map<string, OwnOrderView>();
  readonly positions = new Map<string, Decimal>();
  readonly cash = new Map<string, Decimal>();
  readonly placements: number[] = [];
  seq = 0;

  constructor(readonly spec: HostedStrategy) {
    this.name = spec.name;
    this.symbols = new Set(spec.symbols);
    for (const [a, v] of Object.entries(spec.budget)) this.cash.set(a, v);
  }

  position(asset: string): Decimal {
    return this.positions.get(asset) ?? ZERO;
  }

  /** Budget left: starting budget plus fills' cash flows, minus what open orders lock. */
  free(asset: string): Decimal {
    return (this.cash.get(asset) ?? ZERO).minus(this.locked(asset));
  }

  locked(asset: string): Decimal {
    let l = ZERO;
    for (const o of this.orders.values()) {
      const u = o.symbol.indexOf('_');
      const base = o.symbol.slice(0, u);
      const quote = o.symbol.slice(u + 1);
      const left = o.quantity === undefined ? ZERO : o.quantity.minus(o.cumQty);
      if (o.side === 'SELL' && base === asset) l = l.plus(left);
      else if (o.side === 'BUY' && quote === asset && o.price !== undefined) l = l.plus(left.mul(o.price));
    }
    return l;
  }

  openOrders(): readonly OwnOrderView[] {
    return [...this.orders.values()];
  }

  placementsSince(t: number): number {
    let n = 0;
    for (let i = this.placements.length - 1; i >= 0 && (this.placements[i] as number) > t; i--) n++;
    return n;
  }
}

/** Runs plugins against the bus. `start()` creates and starts them; `stop()` stops them. */
export class StrategyHost {
  readonly #o: StrategyHostOptions;
  readonly #hosted: Hosted[];
  readonly #bySymbol = new Map<string, Hosted[]>();
  readonly #byName = new Map<string, Hosted>();
  #sub: { unsubscribe(): void } | undefined;
  readonly failures: { strategy: string; error: string }[] = [];

  constructor(strategies: readonly HostedStrategy[], opts: StrategyHostOptions) {
    this.#o = opts;
    this.#hosted = strategies.map((s) => new Hosted(s));
    for (const h of this.#hosted) {
      if (this.#byName.has(h.name)) throw new RangeError(`duplicate strategy name ${JSON.stringify(h.name)}`);
      this.#byName.set(h.name, h);
      for (const sym of h.symbols) {
        let l = this.#bySymbol.get(sym);
        if (!l) this.#bySymbol.set(sym, (l = []));
        l.push(h);
      }
    }
  }

  /** Validates parameters, creates each plugin, calls onStart and subscribes to the bus. */
  start(): void {
    for (const h of this.#hosted) {
      const parsed = h.spec.plugin.params.safeParse(h.spec.params ?? {});
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        throw new RangeError(`strategy ${h.name}: params.${issue?.path.join('.') ?? ''}: ${issue?.message ?? 'invalid'}`);
      }
      this.#guard(h, () => {
        h.handlers = h.spec.plugin.create(this.#context(h, parsed.data));
        h.handlers.onStart?.();
      });
    }
    this.#sub = this.#o.bus.events$.subscribe((e) => this.#route(e));
  }

  /** Calls onStop of every running plugin and unsubscribes. */
  stop(): void {
    for (const h of this.#hosted) if (!h.failed) this.#guard(h, () => h.handlers?.onStop?.());
    this.#sub?.unsubscribe();
  }

  #route(e: BusEvent): void {
    switch (e.type) {
      case 'orderUpdate':
      case 'fill':
      case 'intentRejected': {
        const h = this.#byName.get(e.strategy);
        if (h === undefined) return;
        this.#track(h, e);
        this.#deliver(h, e);
        return;
      }
      case 'timer':
      case 'tradingState':
      case 'connection':
      case 'reconcileNeeded':
      case 'accountPosition':
      case 'streamTerminated':
      case 'executionReport':
        if (e.type === 'timer' || e.type === 'tradingState') for (const h of this.#hosted) this.#deliver(h, e);
        return;
      default: {
        const l = this.#bySymbol.get(e.symbol);
        if (l) for (const h of l) this.#deliver(h, e);
      }
    }
  }

  #track(h: Hosted, e: BusEvent): void {
    if (e.type === 'orderUpdate') {
      if (isFinal(e.state)) h.orders.delete(e.clientId);
      else h.orders.set(e.clientId, { clientId: e.clientId, orderId: e.orderId, symbol: e.symbol, side: e.side, orderType: e.orderType, state: e.state, price: e.price, quantity: e.quantity, cumQty: e.cumQty });
    } else if (e.type === 'intentRejected') {
      if (e.intent.kind === 'place') h.orders.delete(e.intent.clientId);
    } else if (e.type === 'fill') {
      const u = e.symbol.indexOf('_');
      const base = e.symbol.slice(0, u);
      const quote = e.symbol.slice(u + 1);
      const buy = e.side === 'BUY';
      h.positions.set(base, h.position(base).plus(buy ? e.qty : e.qty.neg()));
      h.cash.set(base, (h.cash.get(base) ?? ZERO).plus(buy ? e.qty : e.qty.neg()));
      h.cash.set(quote, (h.cash.get(quote) ?? ZERO).plus(buy ? e.quoteQty.neg() : e.quoteQty));
      if (e.commissionAsset !== null) h.cash.set(e.commissionAsset, (h.cash.get(e.commissionAsset) ?? ZERO).minus(e.commission));
    }
  }

  #deliver(h: Hosted, e: BusEvent): void {
    if (h.failed || h.handlers === undefined) return;
    // Inline try/catch rather than #guard: no closure per event on the hot path.
    try {
      h.handlers.onEvent(e);
    } catch (err) {
      this.#fail(h, err);
    }
  }

  #guard(h: Hosted, fn: () => void): void {
    try {
      fn();
    } catch (err) {
      this.#fail(h, err);
    }
  }

  #fail(h: Hosted, err: unknown): void {
    h.failed = true;
    this.failures.push({ strategy: h.name, error: err instanceof Error ? err.message : String(err) });
    this.#o.log.error({ strategy: h.name, err: err instanceof Error ? err.message : String(err) }, 'strategy failed and was stopped');
    this.#o.onFailure?.(h.name, err);
  }

  #submit(h: Hosted, intent: Intent): void {
    const d = this.#o.gate(intent, h);
    if (d.kind === 'reject') {
      const ev: BusEvent = { type: 'intentRejected', E: this.#o.clock.now(), strategy: h.name, intent, reason: d.reason, message: d.message };
      // Delivered after the handler that emitted the intent returns (bus subscribers are synchronous).
      this.#pending.push(() => this.#o.bus.publish(ev));
      return;
    }
    const sent = d.kind === 'adjust' ? d.intent : intent;
    if (sent.kind === 'place') {
      const now = this.#o.clock.now();
      h.placements.push(now);
      // Bounded memory: rate limits look back far less than a day.
      if (h.placements.length > 4096 && (h.placements[0] as number) < now - 86_400_000) h.placements.splice(0, h.placements.findIndex((x) => x >= now - 86_400_000));
      // Tracked as PENDING once accepted (not before: the check must not see the order itself),
      // so the strategy sees its own order before any venue answer.
      h.orders.set(sent.clientId, { clientId: sent.clientId, orderId: undefined, symbol: sent.symbol, side: sent.side, orderType: sent.orderType, state: 'PENDING', price: sent.price, quantity: sent.quantity, cumQty: ZERO });
    }
    this.#o.venue.submit(sent);
  }

  readonly #pending: (() => void)[] = [];

  /** Publishes risk rejections queued while a handler ran; the replay calls this after each event. */
  flush(): void {
    while (this.#pending.length > 0) this.#pending.shift()?.();
  }

  #context(h: Hosted, params: unknown): StrategyContext<unknown> {
    const o = this.#o;
    const intentId = (): string => `${h.name}-i${++h.seq}`;
    return {
      name: h.name,
      params,
      symbols: h.spec.symbols,
      clock: o.clock,
      log: o.log,
      book: (symbol) => (h.symbols.has(symbol) ? o.books(symbol) : undefined),
      openOrders: (symbol) => (h.orders.size === 0 ? NO_ORDERS : [...h.orders.values()].filter((x) => symbol === undefined || x.symbol === symbol)),
      balance: (asset) => ({ free: h.free(asset), locked: h.locked(asset) }),
      position: (asset) => h.position(asset),
      place: (req: PlaceRequest) => {
        if (!h.symbols.has(req.symbol)) throw new RangeError(`strategy ${h.name} does not trade ${req.symbol}`);
        const clientId = req.clientId ?? `${h.name}-${++h.seq}`;
        const { clientId: _ignored, ...rest } = req;
        const intent: PlaceIntent = { kind: 'place', strategy: h.name, intentId: intentId(), clientId, ...rest };
        this.#submit(h, intent);
        return clientId;
      },
      cancel: (symbol, clientId) => this.#submit(h, { kind: 'cancel', strategy: h.name, intentId: intentId(), symbol, clientId }),
      cancelAll: (symbol) => this.#submit(h, symbol === undefined ? { kind: 'cancelAll', strategy: h.name, intentId: intentId() } : { kind: 'cancelAll', strategy: h.name, intentId: intentId(), symbol }),
    };
  }
}
