/**
 * User data through the WebSocket API with a listen token (symbol type 1): obtain a token
 * (POST /open/v1/user-listen-token), `userDataStream.subscribe.listenToken`, and renew before
 * expirationTime by subscribing with a new token before unsubscribing the old subscription, so
 * no event falls between (duplicates from the overlap are dropped by the orderer). An
 * `eventStreamTerminated` for the live subscription, or a reconnect, triggers an immediate
 * re-subscription and a reconcileNeeded status. Shutdown unsubscribes.
 *
 * Decisions where the spec is silent: requests carry string ids; a reply is matched by `id` and
 * is an error when it has an `error` object or a `status` of 400 or more; events arrive as
 * `{subscriptionId, event}` (bare events with an `e` field are accepted too).
 */
import { NetworkError, StreamError } from '../../core/errors.js';
import type { ListenTokenApi } from './apis.js';
import { ManagedSocket } from './managed-socket.js';
import type { TimerHandle } from './timing.js';
import { UserStreamBase, type UserStreamCommonOptions } from './user-stream-base.js';

/** Options of a listen-token user stream. */
export interface ListenTokenUserStreamOptions extends UserStreamCommonOptions {
  /** {ws_api_url}, e.g. wss://host/ws-api/v3. */
  readonly url: string;
  readonly api: ListenTokenApi;
  /** Token validity requested (default: the server's default of 24 h). */
  readonly validityMs?: number;
  /** Renew this long before expirationTime (default 10 minutes, capped at half the remaining validity). */
  readonly renewBeforeMs?: number;
  /** WebSocket API request timeout (default 10 s). */
  readonly requestTimeoutMs?: number;
}

interface Subscription {
  readonly id: number;
  readonly expirationTime: number;
}

interface PendingRequest {
  readonly resolve: (v: unknown) => void;
  readonly reject: (e: Error) => void;
  readonly timer: TimerHandle;
}

/** A listen-token user data stream over the WebSocket API. */
export class ListenTokenUserStream extends UserStreamBase {
  readonly #socket: ManagedSocket;
  readonly #pending = new Map<string, PendingRequest>();
  #nextId = 1;
  #current: Subscription | undefined;
  #renewTimer: TimerHandle | undefined;
  #renewing: Promise<void> | undefined;
  #closed = false;

  constructor(private readonly opts: ListenTokenUserStreamOptions) {
    super(opts, 'user:type1');
    this.#socket = new ManagedSocket({
      ...opts,
      logger: this.log,
      url: async () => opts.url,
      onOpen: (reconnected) => {
        this.emitStatus('up', reconnected ? 'reconnected' : 'connected');
        if (reconnected) this.stats.reconnects++;
        // A new session has no subscription: subscribe afresh (and reconcile if this is a reconnect).
        this.#current = undefined;
        void this.#subscribeFresh(reconnected ? 'user stream reconnected' : undefined);
      },
      onDown: (reason) => {
        this.#failPending(reason);
        this.emitStatus('down', reason);
      },
      onMessage: (text) => this.#onMessage(text),
    });
  }

  /** The live subscription id, undefined while not subscribed. */
  get subscriptionId(): number | undefined {
    return this.#current?.id;
  }

  /** Whether the connection is open and subscribed. */
  get subscribed(): boolean {
    return this.#socket.isOpen && this.#current !== undefined;
  }

  /** Connects and subscribes; renewals run by themselves. */
  start(): void {
    this.#socket.start();
  }

  async #subscribeFresh(reconcileReason: string | undefined): Promise<void> {
    try {
      await this.#renew();
      if (reconcileReason !== undefined) this.needReconcile(reconcileReason);
    } catch (err) {
      // Reconnecting makes the next connection a reconnect, which reports reconcileNeeded.
      this.log.warn({ err: (err as Error).message }, 'listen token subscription failed; reconnecting');
      this.#socket.recycle();
    }
  }

  /** New token, subscribe with it, then unsubscribe the previous subscription. Serialised. */
  #renew(): Promise<void> {
    if (this.#renewing) return this.#renewing;
    const run = async (): Promise<void> => {
      const { token } = await this.opts.api.createListenToken(this.opts.validityMs);
      const result = (await this.#call('userDataStream.subscribe.listenToken', { listenToken: token })) as { subscriptionId?: unknown; expirationTime?: unknown } | null;
      const id = result?.subscriptionId;
      const exp = result?.expirationTime;
      if (typeof id !== 'number' || typeof exp !== 'number') throw new StreamError(-1, `unexpected subscribe result ${JSON.stringify(result)}`);
      const old = this.#current;
      this.#current = { id, expirationTime: exp };
      this.#armRenewal();
      if (old !== undefined && old.id !== id) {
        try {
          await this.#call('userDataStream.unsubscribe', { subscriptionId: old.id });
        } catch (err) {
          // The old subscription expires by itself; its duplicates are dropped meanwhile.
          this.log.info({ err: (err as Error).message }, 'unsubscribing the previous subscription failed');
        }
      }
    };
    this.#renewing = run().finally(() => {
      this.#renewing = undefined;
    });
    return this.#renewing;
  }

  #armRenewal(): void {
    if (this.#renewTimer !== undefined) this.t.timers.clearTimeout(this.#renewTimer);
    const cur = this.#current;
    if (cur === undefined || this.#closed) return;
    const remaining = cur.expirationTime - this.t.clock.now();
    const ahead = Math.min(this.opts.renewBeforeMs ?? 10 * 60_000, remaining / 2);
    this.#renewTimer = this.t.timers.setTimeout(() => {
      this.#renewTimer = undefined;
      this.#renew().catch((err: Error) => {
        this.log.warn({ err: err.message }, 'listen token renewal failed; retrying');
        // Try again soon; if the subscription lapses, eventStreamTerminated triggers recovery.
        this.#renewTimer = this.t.timers.setTimeout(() => this.#armRenewal(), 1000);
      });
    }, Math.max(0, remaining - ahead));
  }

  #call(method: string, params: Record<string, unknown>): Promise<unknown> {
    const id = `k${this.#nextId++}`;
    return new Promise((resolve, reject) => {
      const timer = this.t.timers.setTimeout(() => {
        this.#pending.delete(id);
        reject(new NetworkError('ws-api', `${method}: no reply within timeout`));
      }, this.opts.requestTimeoutMs ?? 10_000);
      this.#pending.set(id, { resolve, reject, timer });
      if (!this.#socket.send(JSON.stringify({ id, method, params }))) {
        this.t.timers.clearTimeout(timer);
        this.#pending.delete(id);
        reject(new NetworkError('ws-api', `${method}: not connected`));
      }
    });
  }

  #failPending(reason: string): void {
    for (const [id, p] of this.#pending) {
      this.t.timers.clearTimeout(p.timer);
      this.#pending.delete(id);
      p.reject(new NetworkError('ws-api', reason));
    }
  }

  #onMessage(text: string): void {
    const doc = this.readJson(text, 'WebSocket API message');
    if (doc === undefined) return;
    if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) {
      this.stats.malformed++;
      return;
    }
    const o = doc as Record<string, unknown>;
    if ('id' in o && typeof o.id === 'string' && this.#pending.has(o.id)) {
      const p = this.#pending.get(o.id) as PendingRequest;
      this.#pending.delete(o.id);
      this.t.timers.clearTimeout(p.timer);
      const err = typeof o.error === 'object' && o.error !== null ? (o.error as Record<string, unknown>) : typeof o.status === 'number' && o.status >= 400 ? o : undefined;
      if (err !== undefined) p.reject(new StreamError(typeof err.code === 'number' ? err.code : typeof o.status === 'number' ? o.status : -1, typeof err.msg === 'string' ? err.msg : JSON.stringify(o)));
      else p.resolve(o.result);
      return;
    }
    const subscriptionId = typeof o.subscriptionId === 'number' ? o.subscriptionId : undefined;
    const payload = 'event' in o ? o.event : o;
    const ev = this.parse(payload, subscriptionId);
    if (ev === undefined || ev.type === 'listenKeyExpired') return;
    if (ev.type === 'streamTerminated') {
      this.deliver(ev);
      if (this.#current !== undefined && ev.subscriptionId === this.#current.id) {
        // The live subscription lapsed (renewal failed or the token was expired early).
        this.#current = undefined;
        void this.#subscribeFresh('listen token subscription terminated');
      }
      return;
    }
    this.deliver(ev);
  }

  /** Unsubscribes everything, closes the connection. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#renewTimer !== undefined) this.t.timers.clearTimeout(this.#renewTimer);
    if (this.#socket.isOpen) {
      try {
        await this.#call('userDataStream.unsubscribe', {});
      } catch (err) {
        this.log.info({ err: (err as Error).message }, 'unsubscribe on shutdown failed');
      }
    }
    this.#failPending('closed');
    await this.#socket.close();
    this.finish();
  }
}
