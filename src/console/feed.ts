/**
 * The console's live feed of a run: listens to the bus and keeps what the page and the
 * notifications need (recent fills, order changes, rejections with reasons, state changes,
 * strategy failures, connection changes, the log tail, an equity series) and hands each new item
 * to its listeners. It runs inside bus delivery, so it only copies: a listener that throws is
 * counted and dropped from that delivery, never passed back into the trading path.
 */
import type { Subscription } from 'rxjs';
import type { BusEvent, TradingStateName } from '../bus/events.js';
import type { FillEvent } from '../bus/events.js';
import type { FillRecord } from '../store/records.js';
import type { ConsoleRun } from './source.js';
import { bookJson, fillJson, orderUpdateJson, pnlByQuote, positionJson, rejectionJson, type BookJson, type FillJson, type OrderJson, type PositionJson, type RejectionJson } from './views.js';

/** One item of the feed. */
export type FeedMessage =
  | { readonly type: 'fill'; readonly fill: FillJson }
  | { readonly type: 'order'; readonly order: OrderJson }
  | { readonly type: 'rejection'; readonly rejection: RejectionJson }
  | { readonly type: 'state'; readonly t: number; readonly strategy: string | undefined; readonly state: TradingStateName; readonly reason: string }
  | { readonly type: 'failure'; readonly t: number; readonly strategy: string; readonly error: string }
  | { readonly type: 'connection'; readonly t: number; readonly connection: string; readonly status: string; readonly reason: string | undefined }
  | { readonly type: 'book'; readonly t: number; readonly symbol: string; readonly ready: boolean; readonly reason: string }
  | { readonly type: 'log'; readonly line: LogLine }
  | { readonly type: 'tick'; readonly t: number; readonly positions: readonly PositionJson[]; readonly books: readonly BookJson[]; readonly pnl: Readonly<Record<string, string>> };

/** One log line as the page shows it. */
export interface LogLine {
  readonly t: number;
  readonly level: string;
  readonly msg: string;
  /** The rest of the line's fields (already redacted by the logger). */
  readonly detail: string;
}

/** A point of the equity (PnL) series, per quote asset. */
export interface EquityPoint {
  readonly t: number;
  readonly pnl: Readonly<Record<string, string>>;
}

/** Sizes and timing of the feed. */
export interface FeedOptions {
  /** Items kept per list (default 200). */
  readonly keep?: number;
  /** Tick period: positions, books, PnL point, failure check (default 1000 ms). */
  readonly tickMs?: number;
  /** Equity points kept (default 7200: two hours at 1 s). */
  readonly equityPoints?: number;
  readonly now?: () => number;
}

/** A bounded list keeping the newest items (a circular buffer); items are turned into their JSON shape only when read. */
class Ring<T, J = T> {
  readonly #items: (T | undefined)[];
  #next = 0;
  #count = 0;
  constructor(
    readonly size: number,
    readonly map: (x: T) => J = (x) => x as unknown as J,
  ) {
    this.#items = new Array<T | undefined>(size);
  }
  push(x: T): void {
    this.#items[this.#next] = x;
    this.#next = (this.#next + 1) % this.size;
    if (this.#count < this.size) this.#count++;
  }
  /** Oldest first. */
  list(): J[] {
    const out: J[] = [];
    for (let i = this.#count; i > 0; i--) out.push(this.map(this.#items[(this.#next - i + this.size) % this.size] as T));
    return out;
  }
}

const PINO_LEVELS: Readonly<Record<number, string>> = { 10: 'trace', 20: 'debug', 30: 'info', 40: 'warn', 50: 'error', 60: 'fatal' };

/** The live feed of one run. */
export class RunFeed {
  readonly fills: Ring<FillEvent | FillRecord, FillJson>;
  readonly rejections: Ring<RejectionJson>;
  readonly events: Ring<FeedMessage>;
  readonly logs: Ring<LogLine>;
  readonly equity: Ring<EquityPoint>;
  /** Rejections by reason since the console started. */
  readonly rejectionCounts = new Map<string, number>();
  /** Listener errors (each one dropped, never rethrown). */
  listenerErrors = 0;
  readonly #run: ConsoleRun;
  readonly #now: () => number;
  readonly #listeners = new Set<(m: FeedMessage) => void>();
  readonly #failed = new Set<string>();
  readonly #floors = new Map<string, TradingStateName>();
  #sub: Subscription | undefined;
  #timer: NodeJS.Timeout | undefined;
  readonly #tickMs: number;

  constructor(run: ConsoleRun, o: FeedOptions = {}) {
    this.#run = run;
    const keep = o.keep ?? 200;
    this.fills = new Ring(keep, fillJson);
    this.rejections = new Ring(keep);
    this.events = new Ring(keep);
    this.logs = new Ring(keep);
    this.equity = new Ring(o.equityPoints ?? 7200);
    this.#now = o.now ?? Date.now;
    this.#tickMs = o.tickMs ?? 1000;
    for (const f of run.recentFills(keep)) this.fills.push(f);
  }

  /** Starts listening to the bus and ticking. */
  start(): void {
    this.#sub = this.#run.events$.subscribe((e) => {
      try {
        this.#onEvent(e);
      } catch {
        this.listenerErrors++;
      }
    });
    this.#timer = setInterval(() => {
      try {
        this.tick();
      } catch {
        this.listenerErrors++;
      }
    }, this.#tickMs);
    this.#timer.unref();
  }

  /** Stops listening. */
  stop(): void {
    this.#sub?.unsubscribe();
    clearInterval(this.#timer);
    this.#listeners.clear();
  }

  /** Adds a listener; returns its removal. */
  listen(fn: (m: FeedMessage) => void): () => void {
    this.#listeners.add(fn);
    return () => this.#listeners.delete(fn);
  }

  /** Takes one pino JSON line (the log tap). */
  log(text: string): void {
    let o: Record<string, unknown>;
    try {
      o = JSON.parse(text) as Record<string, unknown>;
    } catch {
      return;
    }
    const { level, time, msg, pid: _pid, hostname: _host, name: _name, ...rest } = o;
    const line: LogLine = { t: typeof time === 'number' ? time : this.#now(), level: PINO_LEVELS[Number(level)] ?? String(level), msg: typeof msg === 'string' ? msg : '', detail: Object.keys(rest).length > 0 ? JSON.stringify(rest).slice(0, 2000) : '' };
    this.logs.push(line);
    this.#emit(() => ({ type: 'log', line }));
  }

  /** Samples positions, books and PnL; notices strategy failures and floor changes. Runs every tick. */
  tick(): void {
    const t = this.#now();
    for (const s of this.#run.strategies()) {
      if (s.failure && !this.#failed.has(s.name)) {
        this.#failed.add(s.name);
        this.#push({ type: 'failure', t: s.failure.t, strategy: s.name, error: s.failure.error });
      }
      const before = this.#floors.get(s.name) ?? 'ACTIVE';
      if (before !== s.state) {
        this.#floors.set(s.name, s.state);
        this.#push({ type: 'state', t, strategy: s.name, state: s.state, reason: s.reason });
      }
    }
    const positions = this.#run.positions();
    const pnl = pnlByQuote(positions);
    this.equity.push({ t, pnl });
    this.#emit(() => ({ type: 'tick', t, positions: positions.map(positionJson), books: this.#run.bookTops().map(bookJson), pnl }));
  }

  #onEvent(e: BusEvent): void {
    const t = this.#now();
    switch (e.type) {
      case 'fill':
        this.fills.push(e);
        this.#emit(() => ({ type: 'fill', fill: fillJson(e) }));
        return;
      case 'orderUpdate':
        // Open orders are read from the run; the feed only passes changes on to whoever listens.
        this.#emit(() => ({ type: 'order', order: orderUpdateJson(e, t) }));
        return;
      case 'intentRejected': {
        const rejection = rejectionJson(e, t);
        this.rejections.push(rejection);
        this.rejectionCounts.set(rejection.reason, (this.rejectionCounts.get(rejection.reason) ?? 0) + 1);
        this.#emit(() => ({ type: 'rejection', rejection }));
        return;
      }
      case 'tradingState':
        this.#push({ type: 'state', t: e.E, strategy: undefined, state: e.state, reason: e.reason });
        return;
      case 'connection':
        this.#push({ type: 'connection', t: e.E, connection: e.connection, status: e.status, reason: e.reason });
        return;
      case 'bookStatus':
        this.#push({ type: 'book', t: e.E, symbol: e.symbol, ready: e.ready, reason: e.reason });
        return;
      default:
        return;
    }
  }

  /** Keeps a notable event in the event list and emits it. */
  #push(m: FeedMessage): void {
    this.events.push(m);
    this.#emit(() => m);
  }

  /** Builds the message only when someone listens (the JSON shapes cost Decimal formatting). */
  #emit(make: () => FeedMessage): void {
    if (this.#listeners.size === 0) return;
    const m = make();
    for (const fn of this.#listeners) {
      try {
        fn(m);
      } catch {
        this.listenerErrors++;
      }
    }
  }
}
