/**
 * Control requests of a market-stream connection (SUBSCRIBE, LIST_SUBSCRIPTIONS, SET_PROPERTY …)
 * matched to their replies by id. Each has a timeout; the requests of a connection fail when it
 * goes away, so no caller waits on a reply that cannot come.
 */
import type { Logger } from 'pino';
import type WebSocket from 'ws';
import { NetworkError, StateError, StreamError } from '../../core/errors.js';
import type { TimerHandle, Timers } from './timing.js';

interface Pending {
  readonly resolve: (v: unknown) => void;
  readonly reject: (e: Error) => void;
  readonly timer: TimerHandle;
  readonly gen: number;
}

/** Requests in flight on a stream client's connections, keyed by request id. */
export class ControlRequests {
  readonly #pending = new Map<number, Pending>();
  #nextId = 1;

  constructor(
    private readonly timers: Timers,
    private readonly timeoutMs: number,
    private readonly log: Logger,
  ) {}

  /** Sends `method` on connection `gen`'s socket; resolves with the reply's `result`. */
  send(ws: WebSocket, gen: number, method: string, params: unknown): Promise<unknown> {
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      const timer = this.timers.setTimeout(() => {
        this.#pending.delete(id);
        reject(new NetworkError('stream control', `${method} id ${id}: no reply within timeout`));
      }, this.timeoutMs);
      this.#pending.set(id, { resolve, reject, timer, gen });
      const msg = params === undefined ? { method, id } : { method, params, id };
      ws.send(JSON.stringify(msg));
    });
  }

  /** Settles the request a reply answers (a reply nobody asked for is logged). */
  onReply(o: Record<string, unknown>): void {
    const id = typeof o.id === 'number' ? o.id : undefined;
    const p = id === undefined ? undefined : this.#pending.get(id);
    if (p === undefined || id === undefined) {
      this.log.warn({ reply: o }, 'stream control reply without a matching request');
      return;
    }
    this.#pending.delete(id);
    this.timers.clearTimeout(p.timer);
    // Error replies are `{code, msg, id}` on this exchange; `{error: {code, msg}, id}` is accepted too.
    const err = typeof o.error === 'object' && o.error !== null ? (o.error as Record<string, unknown>) : 'code' in o ? o : undefined;
    if (err !== undefined) p.reject(new StreamError(typeof err.code === 'number' ? err.code : -1, typeof err.msg === 'string' ? err.msg : JSON.stringify(err)));
    else p.resolve(o.result);
  }

  /** Fails the requests of connection `gen` (it closed or was rotated out). */
  failConnection(gen: number, reason: string): void {
    for (const [id, p] of this.#pending) {
      if (p.gen !== gen) continue;
      this.timers.clearTimeout(p.timer);
      this.#pending.delete(id);
      p.reject(new NetworkError('stream control', reason));
    }
  }

  /** Fails every request: the client is closing. */
  failAll(): void {
    for (const [id, p] of this.#pending) {
      this.timers.clearTimeout(p.timer);
      p.reject(new StateError('stream client closed'));
      this.#pending.delete(id);
    }
  }
}
