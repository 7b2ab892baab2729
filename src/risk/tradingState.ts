/**
 * Trading states ACTIVE / REDUCING / HALTED as a small state machine with three independent
 * sources, the most severe winning: an operator command, the user limits (e.g. the daily loss
 * limit moves to REDUCING), and data health (a user stream resyncing, a reconcile pending or an
 * exchange that answers nothing halts everything; a book resyncing halts its symbol). Cancels always pass whatever the state.
 */
import type { BusEvent, TradingStateEvent, TradingStateName } from '../bus/events.js';

const SEVERITY: Readonly<Record<TradingStateName, number>> = { ACTIVE: 0, REDUCING: 1, HALTED: 2 };

function worst(a: TradingStateName, b: TradingStateName): TradingStateName {
  return SEVERITY[a] >= SEVERITY[b] ? a : b;
}

/** Options of the state machine. */
export interface TradingStateOptions {
  /** Called on every change of the global state (publish it on the bus as a tradingState event). */
  onChange?: (event: TradingStateEvent) => void;
  /** Connection names counted as user-data streams (default: names starting with 'user'). */
  isUserConnection?: (name: string) => boolean;
}

/** The run's trading state. Feed it bus events with `onEvent`; read it with `state` / `stateFor`. */
export class TradingStateMachine {
  #operator: TradingStateName = 'ACTIVE';
  #operatorReason = 'start';
  #limit: TradingStateName = 'ACTIVE';
  #limitReason = '';
  readonly #userDown = new Map<string, string>();
  #reconcileReason: string | undefined;
  /** Set while the exchange answers nothing at all (src/execution/liveness.ts). */
  #unreachable: string | undefined;
  readonly #booksNotReady = new Map<string, string>();
  /** Operator floors of single strategies (absent: ACTIVE); they never change the global state. */
  readonly #strategyFloors = new Map<string, { state: TradingStateName; reason: string }>();
  #last: TradingStateName = 'ACTIVE';
  /** Cached global state; recomputed only after an input changed (stateFor is on the risk hot path). */
  #cached: { state: TradingStateName; reason: string } | undefined;
  readonly #onChange: ((event: TradingStateEvent) => void) | undefined;
  readonly #isUser: (name: string) => boolean;

  constructor(opts: TradingStateOptions = {}) {
    this.#onChange = opts.onChange;
    this.#isUser = opts.isUserConnection ?? ((n) => n.startsWith('user'));
  }

  /** The global state (what applies to a symbol whose book is fine). */
  get state(): TradingStateName {
    return this.#compute().state;
  }

  /** Why the global state is what it is. */
  get reason(): string {
    return this.#compute().reason;
  }

  /**
   * State for one symbol: the global state, or HALTED while that symbol's book resyncs; with
   * `strategy`, that strategy's operator floor too (the most severe wins).
   */
  stateFor(symbol: string, strategy?: string): TradingStateName {
    if (this.#booksNotReady.size > 0 && this.#booksNotReady.has(symbol)) return 'HALTED';
    const state = this.#compute().state;
    if (strategy === undefined || this.#strategyFloors.size === 0) return state;
    const floor = this.#strategyFloors.get(strategy);
    return floor === undefined ? state : worst(state, floor.state);
  }

  /** Operator command for one strategy: its floor state (ACTIVE lifts it). Other strategies and the global state are untouched. */
  commandStrategy(strategy: string, state: TradingStateName, reason: string): void {
    if (state === 'ACTIVE') this.#strategyFloors.delete(strategy);
    else this.#strategyFloors.set(strategy, { state, reason: `operator: ${reason}` });
  }

  /** A strategy's operator floor and why (ACTIVE when none is set). */
  strategyFloor(strategy: string): { state: TradingStateName; reason: string } {
    return this.#strategyFloors.get(strategy) ?? { state: 'ACTIVE', reason: 'active' };
  }

  /** Operator command (CLI, signal): sets the operator's floor state. */
  command(state: TradingStateName, reason: string, now: number): void {
    this.#operator = state;
    this.#operatorReason = `operator: ${reason}`;
    this.#emit(now);
  }

  /** Limit-driven state (e.g. REDUCING after the daily loss limit; ACTIVE when the day rolls over). */
  setLimitState(state: TradingStateName, reason: string, now: number): void {
    this.#limit = state;
    this.#limitReason = `limit: ${reason}`;
    this.#emit(now);
  }

  /** The router finished reconciling after a reconcileNeeded event or a start-up. */
  reconciled(now: number): void {
    this.#reconcileReason = undefined;
    this.#emit(now);
  }

  /** The exchange is unreachable (`reason`) or reachable again (undefined): everything halts meanwhile. */
  setExchangeUnreachable(reason: string | undefined, now: number): void {
    this.#unreachable = reason;
    this.#emit(now);
  }

  /** Marks a reconcile as pending (start-up before the first reconciliation). */
  requireReconcile(reason: string, now: number): void {
    this.#reconcileReason = reason;
    this.#emit(now);
  }

  /** Feeds one bus event; only bookStatus, connection and reconcileNeeded matter. */
  onEvent(e: BusEvent): void {
    switch (e.type) {
      case 'bookStatus':
        if (e.ready) this.#booksNotReady.delete(e.symbol);
        else this.#booksNotReady.set(e.symbol, e.reason);
        return;
      case 'connection':
        if (!this.#isUser(e.connection)) return;
        if (e.status === 'up') this.#userDown.delete(e.connection);
        else this.#userDown.set(e.connection, `${e.connection} ${e.status}${e.reason ? `: ${e.reason}` : ''}`);
        this.#emit(e.E);
        return;
      case 'reconcileNeeded':
        this.requireReconcile(e.reason, e.E);
        return;
      default:
        return;
    }
  }

  #compute(): { state: TradingStateName; reason: string } {
    if (this.#cached) return this.#cached;
    let state: TradingStateName = 'ACTIVE';
    let reason = 'active';
    const consider = (s: TradingStateName, r: string): void => {
      if (SEVERITY[s] > SEVERITY[state]) {
        state = s;
        reason = r;
      }
    };
    consider(this.#operator, this.#operatorReason);
    consider(this.#limit, this.#limitReason);
    if (this.#unreachable !== undefined) consider('HALTED', this.#unreachable);
    for (const r of this.#userDown.values()) consider('HALTED', `user stream resyncing: ${r}`);
    if (this.#reconcileReason !== undefined) consider('HALTED', `reconcile pending: ${this.#reconcileReason}`);
    this.#cached = { state: worst(state, 'ACTIVE'), reason };
    return this.#cached;
  }

  #emit(now: number): void {
    this.#cached = undefined;
    const { state, reason } = this.#compute();
    if (state === this.#last) return;
    this.#last = state;
    this.#onChange?.({ type: 'tradingState', E: now, state, reason });
  }
}
