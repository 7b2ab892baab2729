/**
 * Fault injection: the switches tests of everything else flip to see how a client copes.
 * The controller only holds state; the HTTP hosts, the stream server and the WebSocket API
 * consult it on every request or message. Actions that must reach live sockets (drop a
 * connection, expire a key) go through hooks the sandbox installs.
 */
import type { RejectReasonName } from '../core/enums.js';
import type { ForcedStatus } from './rate-limits.js';

/** Which REST interface a fault applies to. */
export type FaultScope = 'open' | 'legacy' | 'all';

/** A response fault on requests whose path starts with `pathPrefix` (all paths when absent). */
export interface ResponseFault {
  readonly scope: FaultScope;
  readonly pathPrefix?: string;
  /** How many requests it affects; undefined = until cleared. */
  remaining?: number;
}

/** Delay responses by `ms`. */
export interface DelayFault extends ResponseFault {
  readonly ms: number;
}

/** Answer an order placement with a 5XX, before the engine sees it or after it accepted it. */
export interface OrderFailureFault {
  readonly scope: FaultScope;
  readonly when: 'before' | 'after';
  readonly status: number;
  remaining?: number;
}

/**
 * What a cancel fault does: cancel the order and then answer 5XX, cancel it and then drop the
 * connection without an answer, or answer 5XX without cancelling (the order keeps resting).
 */
export const CancelFaultMode = {
  APPLY_THEN_5XX: 'apply-then-5xx',
  APPLY_THEN_DROP: 'apply-then-drop',
  REFUSE_5XX: '5xx-without-apply',
} as const;
/** One of CancelFaultMode. */
export type CancelFaultMode = (typeof CancelFaultMode)[keyof typeof CancelFaultMode];

/** Spoils the answer of the next cancels of one order each (open API cancel, legacy /v1 submission "2"). */
export interface CancelFailureFault {
  readonly scope: FaultScope;
  readonly mode: CancelFaultMode;
  readonly status: number;
  remaining?: number;
}

/** What a cancel fault asks of a cancel route at one phase: answer `status`, or drop the connection. */
export type CancelFaultAction = { readonly kind: 'status'; readonly status: number } | { readonly kind: 'drop' };

/** Hooks the running sandbox installs so faults reach live connections. */
export interface FaultHooks {
  dropConnections(connectionId?: number): number;
  expireListenKey(key: string): boolean;
  expireListenToken(token: string): boolean;
  forceRateLimit(status: ForcedStatus, seconds: number): void;
}

/** What the faults say about one REST request. */
export interface RequestFaults {
  readonly maintenance: boolean;
  readonly blackhole: boolean;
  readonly delayMs: number;
}

function matches(f: ResponseFault, scope: 'open' | 'legacy', path: string): boolean {
  return (f.scope === 'all' || f.scope === scope) && (f.pathPrefix === undefined || path.startsWith(f.pathPrefix));
}

function consume<T extends { remaining?: number }>(list: T[], i: number): void {
  const f = list[i] as T;
  if (f.remaining !== undefined) {
    f.remaining--;
    if (f.remaining <= 0) list.splice(i, 1);
  }
}

/** The fault switches of one sandbox. */
export class FaultController {
  #maintenance: FaultScope | undefined;
  readonly #delays: DelayFault[] = [];
  readonly #blackholes: ResponseFault[] = [];
  readonly #orderFailures: OrderFailureFault[] = [];
  readonly #cancelFailures: CancelFailureFault[] = [];
  readonly #depthGaps = new Map<string, number>();
  #reorder = 0;
  #crash = false;
  readonly #rejections: RejectReasonName[] = [];
  #processing: { orderId: string | undefined; remaining: number } | undefined;
  #hooks: FaultHooks | undefined;

  /** Installed by the sandbox at start. */
  attach(hooks: FaultHooks): void {
    this.#hooks = hooks;
  }

  #hook(): FaultHooks {
    if (!this.#hooks) throw new Error('fault controller is not attached to a running sandbox');
    return this.#hooks;
  }

  /** 503 maintenance on the open API (default), the legacy API or both; undefined turns it off. */
  setMaintenance(scope: FaultScope | undefined): void {
    this.#maintenance = scope;
  }

  /** Delays matching responses by `ms`. */
  delay(ms: number, opts: { scope?: FaultScope; pathPrefix?: string; count?: number } = {}): void {
    this.#delays.push({ ms, scope: opts.scope ?? 'all', ...(opts.pathPrefix !== undefined ? { pathPrefix: opts.pathPrefix } : {}), ...(opts.count !== undefined ? { remaining: opts.count } : {}) });
  }

  /** Never answers matching requests (the socket stays open until the client gives up or the sandbox stops). */
  blackhole(opts: { scope?: FaultScope; pathPrefix?: string; count?: number } = {}): void {
    this.#blackholes.push({ scope: opts.scope ?? 'all', ...(opts.pathPrefix !== undefined ? { pathPrefix: opts.pathPrefix } : {}), ...(opts.count !== undefined ? { remaining: opts.count } : {}) });
  }

  /** The next `count` (default 1) order placements answer `status` (default 500), before or after the engine accepted them. */
  failOrders(when: 'before' | 'after', opts: { status?: number; count?: number; scope?: FaultScope } = {}): void {
    this.#orderFailures.push({ when, status: opts.status ?? 500, scope: opts.scope ?? 'all', remaining: opts.count ?? 1 });
  }

  /**
   * The next `count` (default 1) cancels of a single order are spoiled as `mode` says; a 5XX
   * answers `status` (default 500). A fault that applies the cancel is used only by a cancel
   * that succeeded; one that refuses is used by the next well-formed cancel request.
   */
  failCancels(mode: CancelFaultMode, opts: { status?: number; count?: number; scope?: FaultScope } = {}): void {
    this.#cancelFailures.push({ mode, status: opts.status ?? 500, scope: opts.scope ?? 'all', remaining: opts.count ?? 1 });
  }

  /**
   * The next `count` (default 1) open API order placements are accepted and answered, then
   * rejected by the engine: the user stream carries the NEW executionReport followed by one with
   * execution type and status REJECTED and `reason` (default INSUFFICIENT_BALANCE).
   */
  rejectAcceptedOrders(reason: RejectReasonName = 'INSUFFICIENT_BALANCE', count = 1): void {
    for (let i = 0; i < count; i++) this.#rejections.push(reason);
  }

  /** Consulted after an open API placement was answered: the reason to reject it with, if armed. */
  takeRejection(): RejectReasonName | undefined {
    return this.#rejections.shift();
  }

  /**
   * The next `count` (default 1) open API answers about one order (`orderId`, or any order), by
   * its detail or in an order list, say status SYSTEM_PROCESSING (-2) whatever the order's real
   * state, as the exchange does while it is still working on an order.
   */
  reportProcessing(opts: { orderId?: string; count?: number } = {}): void {
    this.#processing = { orderId: opts.orderId, remaining: opts.count ?? 1 };
  }

  /** Consulted by the order query: true when this answer must say SYSTEM_PROCESSING. */
  takeProcessing(orderId: string): boolean {
    const p = this.#processing;
    if (p === undefined || (p.orderId !== undefined && p.orderId !== orderId)) return false;
    if (--p.remaining <= 0) this.#processing = undefined;
    return true;
  }

  /** Skips `count` (default 1) depth update batches of `symbol` on the diff streams, so clients see a sequence gap. */
  skipDepthUpdates(symbol: string, count = 1): void {
    this.#depthGaps.set(symbol, (this.#depthGaps.get(symbol) ?? 0) + count);
  }

  /**
   * Delivers the next `count` (default 2) user data events in reverse order, as the spec warns
   * can happen under load ("order them by E"). Held events are released by the next stream tick
   * even if fewer arrive.
   */
  reorderUserEvents(count = 2): void {
    this.#reorder = Math.max(2, count);
  }

  /** Consulted by the stream server: how many user events to hold and reverse (0: none). */
  takeReorder(): number {
    const n = this.#reorder;
    this.#reorder = 0;
    return n;
  }

  /** Makes the stream server's next housekeeping tick throw, as a bug in the sandbox would. */
  crash(): void {
    this.#crash = true;
  }

  /** Consulted by the stream server each tick: whether to throw now (once). */
  takeCrash(): boolean {
    const c = this.#crash;
    this.#crash = false;
    return c;
  }

  /** Forces every client into 429, a 418 ban, or a 403 from the web application firewall, for `seconds`. */
  forceRateLimit(status: ForcedStatus, seconds: number): void {
    this.#hook().forceRateLimit(status, seconds);
  }

  /** Drops every WebSocket connection, or the one with this id; returns how many were dropped. */
  dropConnections(connectionId?: number): number {
    return this.#hook().dropConnections(connectionId);
  }

  /** Expires a listen key now; its streams close. */
  expireListenKey(key: string): boolean {
    return this.#hook().expireListenKey(key);
  }

  /** Expires a listen token now; its subscriptions get eventStreamTerminated. */
  expireListenToken(token: string): boolean {
    return this.#hook().expireListenToken(token);
  }

  /** Clears every fault. */
  clear(): void {
    this.#maintenance = undefined;
    this.#delays.length = 0;
    this.#blackholes.length = 0;
    this.#orderFailures.length = 0;
    this.#cancelFailures.length = 0;
    this.#depthGaps.clear();
    this.#reorder = 0;
    this.#crash = false;
    this.#rejections.length = 0;
    this.#processing = undefined;
  }

  /** Consulted by the hosts for each request. */
  forRequest(scope: 'open' | 'legacy', path: string): RequestFaults {
    const maintenance = this.#maintenance !== undefined && (this.#maintenance === 'all' || this.#maintenance === scope);
    let blackhole = false;
    const bi = this.#blackholes.findIndex((f) => matches(f, scope, path));
    if (bi >= 0) {
      blackhole = true;
      consume(this.#blackholes, bi);
    }
    let delayMs = 0;
    const di = this.#delays.findIndex((f) => matches(f, scope, path));
    if (di >= 0) {
      delayMs = (this.#delays[di] as DelayFault).ms;
      consume(this.#delays, di);
    }
    return { maintenance, blackhole, delayMs };
  }

  /** Consulted by order placement: the status to answer, if a failure is armed for this phase. */
  orderFailure(scope: 'open' | 'legacy', when: 'before' | 'after'): number | undefined {
    const i = this.#orderFailures.findIndex((f) => f.when === when && (f.scope === 'all' || f.scope === scope));
    if (i < 0) return undefined;
    const status = (this.#orderFailures[i] as OrderFailureFault).status;
    consume(this.#orderFailures, i);
    return status;
  }

  /** Consulted by cancel routes before the engine sees the cancel ('before') and after it applied it ('after'). */
  cancelFailure(scope: 'open' | 'legacy', when: 'before' | 'after'): CancelFaultAction | undefined {
    const i = this.#cancelFailures.findIndex((f) => (f.mode === CancelFaultMode.REFUSE_5XX) === (when === 'before') && (f.scope === 'all' || f.scope === scope));
    if (i < 0) return undefined;
    const f = this.#cancelFailures[i] as CancelFailureFault;
    consume(this.#cancelFailures, i);
    return f.mode === CancelFaultMode.APPLY_THEN_DROP ? { kind: 'drop' } : { kind: 'status', status: f.status };
  }

  /** Consulted by the depth streams: true when this batch must be skipped. */
  takeDepthGap(symbol: string): boolean {
    const n = this.#depthGaps.get(symbol) ?? 0;
    if (n <= 0) return false;
    if (n === 1) this.#depthGaps.delete(symbol);
    else this.#depthGaps.set(symbol, n - 1);
    return true;
  }
}
