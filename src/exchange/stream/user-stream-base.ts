/**
 * What both user data streams share: typed event and status subjects, E-ordering with
 * duplicate removal, payload parsing that never throws into the caller, and the
 * "reconciliation needed" signal after any gap.
 */
import { type Logger, pino } from 'pino';
import { Subject, type Observable } from 'rxjs';
import type { ConnectionStatusEvent, ReconcileNeededEvent, UserDataEvent } from '../../core/marketEvents.js';
import { type UserPayload, parseUserPayload } from './parse-user.js';
import { type TimingDeps, timing } from './timing.js';
import { UserEventOrderer } from './user-event-order.js';
import { scrubSecretText } from '../../core/secretScrub.js';
import { parseExchangeJson } from '../transport/exchangeJson.js';

/** Status of a user data stream: connection changes and reconciliation requests. */
export type UserStreamStatus = ConnectionStatusEvent | ReconcileNeededEvent;

/**
 * Default window (ms) for ordering user data events by E: the longest an event is held when a gap
 * or a reordering is seen (./user-event-order.ts). Events that arrive in order are not held.
 */
export const USER_EVENT_ORDER_WINDOW_MS = 100;

/** Options shared by user data streams. */
export interface UserStreamCommonOptions extends TimingDeps {
  /** Longest hold when events arrive out of order (default 100 ms; 0 disables holding). */
  readonly reorderWindowMs?: number;
  readonly pingIntervalMs?: number;
  readonly pongTimeoutMs?: number;
  /**
   * Live trading: after a frame that led to an order, the rest of its socket read waits until
   * that order's request is written (frame-turns.ts); events keep their order.
   */
  readonly holdFramesForOrders?: boolean;
  readonly backoff?: { readonly initialMs?: number; readonly maxMs?: number; readonly factor?: number };
  /** Label in status events. */
  readonly name?: string;
  readonly logger?: Logger;
}

/** Counters. */
export interface UserStreamStats {
  events: number;
  malformed: number;
  reconnects: number;
  reconciliations: number;
}

/** Base of the listen-key and listen-token streams. */
export abstract class UserStreamBase {
  readonly stats: UserStreamStats = { events: 0, malformed: 0, reconnects: 0, reconciliations: 0 };
  protected readonly t: ReturnType<typeof timing>;
  protected readonly log: Logger;
  readonly #events = new Subject<UserDataEvent>();
  readonly #status = new Subject<UserStreamStatus>();
  readonly #orderer: UserEventOrderer;

  protected constructor(
    protected readonly common: UserStreamCommonOptions,
    defaultName: string,
  ) {
    this.t = timing(common);
    this.log = common.logger ?? pino({ hooks: { streamWrite: scrubSecretText }, name: `kancil.${defaultName}` });
    this.name = common.name ?? defaultName;
    this.#orderer = new UserEventOrderer({
      windowMs: common.reorderWindowMs ?? USER_EVENT_ORDER_WINDOW_MS,
      clock: this.t.clock,
      timers: this.t.timers,
      emit: (ev) => {
        this.stats.events++;
        this.#events.next(ev);
      },
      onGap: (reason) => this.needReconcile(reason),
    });
  }

  /** Label used in status events. */
  readonly name: string;

  /** executionReport, accountPosition and streamTerminated events, ordered by E, without duplicates. */
  get events$(): Observable<UserDataEvent> {
    return this.#events.asObservable();
  }

  /** Connection up/down and reconcileNeeded. */
  get status$(): Observable<UserStreamStatus> {
    return this.#status.asObservable();
  }

  /** Counters of the orderer: late arrivals, duplicates dropped, events held, gaps left open. */
  get ordering(): { late: number; duplicates: number; held: number; gaps: number } {
    const o = this.#orderer;
    return { late: o.late, duplicates: o.duplicates, held: o.held, gaps: o.gaps };
  }

  protected emitStatus(status: ConnectionStatusEvent['status'], reason: string): void {
    this.#status.next({ type: 'connection', E: this.t.clock.now(), connection: this.name, status, reason });
  }

  /** Events may have been missed: the router must query open orders and trades. */
  protected needReconcile(reason: string): void {
    this.stats.reconciliations++;
    this.log.info({ reason }, 'user data reconciliation needed');
    this.#status.next({ type: 'reconcileNeeded', E: this.t.clock.now(), reason });
  }

  /**
   * The JSON of a message, or undefined (counted and logged as `what`) when it is not JSON.
   * Integers above 2^53 (order ids) become strings first, as on the REST side, so an id keeps
   * every digit instead of failing the report or naming another order.
   */
  protected readJson(text: string, what: string): unknown {
    try {
      return parseExchangeJson(text);
    } catch {
      this.stats.malformed++;
      this.log.warn({ payload: text.slice(0, 300) }, `malformed ${what} skipped`);
      return undefined;
    }
  }

  /**
   * Parses a payload; malformed ones are logged and counted. An executionReport that cannot be
   * read still means an order changed (a fill, a cancel, an expiry): the router must look it up,
   * so a reconciliation is requested rather than trading on a stale order state.
   */
  protected parse(data: unknown, subscriptionId?: number): UserPayload | undefined {
    try {
      return parseUserPayload(data, subscriptionId);
    } catch (err) {
      this.stats.malformed++;
      const text = JSON.stringify(data) ?? String(data);
      this.log.warn({ err: (err as Error).message, payload: text.slice(0, 300) }, 'malformed user data payload skipped');
      if (typeof data === 'object' && data !== null && (data as { e?: unknown }).e === 'executionReport') {
        this.needReconcile(`malformed executionReport: ${(err as Error).message}`);
      }
      return undefined;
    }
  }

  protected deliver(ev: UserDataEvent): void {
    this.#orderer.push(ev);
  }

  protected finish(): void {
    this.#orderer.close();
    this.#events.complete();
    this.#status.complete();
  }
}
