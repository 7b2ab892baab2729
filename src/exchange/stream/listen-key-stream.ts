/**
 * User data over a listen key (symbol type 3, and type 1 until its decommission): create the
 * key, connect to `/ws/<listenKey>`, keep it alive about every 30 minutes, re-create it when a
 * keep-alive is refused or the key expired, close it on shutdown. After any reconnect or key
 * change events may have been missed, so a reconcileNeeded status is emitted.
 */
import { ManagedSocket } from './managed-socket.js';
import type { ListenKeyApi } from './apis.js';
import type { TimerHandle } from './timing.js';
import { UserStreamBase, type UserStreamCommonOptions } from './user-stream-base.js';

/** Options of a listen-key user stream. */
export interface ListenKeyUserStreamOptions extends UserStreamCommonOptions {
  /** Stream host base URL ({stream_url_new} for type 3, {stream_url} for type 1). */
  readonly url: string;
  readonly symbolType: 1 | 3;
  readonly api: ListenKeyApi;
  /** Keep-alive period (default 30 minutes; keys live 60). */
  readonly keepAliveMs?: number;
}

/** A listen-key user data stream. */
export class ListenKeyUserStream extends UserStreamBase {
  readonly #socket: ManagedSocket;
  readonly #base: string;
  #key: string | undefined;
  /** Set when the key was refused; the next connection creates a new one. */
  #keyInvalid = true;
  #keepAlive: TimerHandle | undefined;
  #closed = false;

  constructor(private readonly opts: ListenKeyUserStreamOptions) {
    super(opts, `user:type${opts.symbolType}`);
    this.#base = opts.url.replace(/\/+$/, '').replace(/\/(stream|ws)$/, '');
    this.#socket = new ManagedSocket({
      ...opts,
      logger: this.log,
      url: () => this.#prepare(),
      onOpen: (reconnected) => {
        this.emitStatus('up', reconnected ? 'reconnected' : 'connected');
        if (reconnected) {
          this.stats.reconnects++;
          this.needReconcile('user stream reconnected');
        }
      },
      onDown: (reason) => this.emitStatus('down', reason),
      onMessage: (text) => this.#onMessage(text),
    });
  }

  /** The current listen key (for tests and diagnostics; never logged). */
  get listenKey(): string | undefined {
    return this.#key;
  }

  /** Whether the stream connection is open. */
  get connected(): boolean {
    return this.#socket.isOpen;
  }

  /** Creates the key and connects; reconnection and renewal then run by themselves. */
  start(): void {
    this.#socket.start();
    this.#armKeepAlive();
  }

  /** Validates or re-creates the key before each connection attempt. */
  async #prepare(): Promise<string> {
    const api = this.opts.api;
    if (this.#key !== undefined && !this.#keyInvalid) {
      try {
        await api.keepAliveListenKey(this.opts.symbolType, this.#key);
      } catch (err) {
        this.log.info({ err: (err as Error).message }, 'listen key refused on keep-alive; creating a new one');
        this.#keyInvalid = true;
      }
    }
    if (this.#key === undefined || this.#keyInvalid) {
      this.#key = await api.createListenKey(this.opts.symbolType);
      this.#keyInvalid = false;
    }
    return `${this.#base}/ws/${this.#key}`;
  }

  #armKeepAlive(): void {
    if (this.#closed) return;
    this.#keepAlive = this.t.timers.setTimeout(() => {
      void this.#keepAliveNow().finally(() => this.#armKeepAlive());
    }, this.opts.keepAliveMs ?? 30 * 60_000);
  }

  async #keepAliveNow(): Promise<void> {
    const key = this.#key;
    if (key === undefined || this.#closed) return;
    try {
      await this.opts.api.keepAliveListenKey(this.opts.symbolType, key);
    } catch (err) {
      // Expired or refused (401-style): a new key means a new connection; events in between may be lost.
      this.log.warn({ err: (err as Error).message }, 'listen key keep-alive refused; re-creating the key');
      this.#replaceKey('listen key keep-alive refused');
    }
  }

  #replaceKey(reason: string): void {
    if (this.#closed) return;
    this.#keyInvalid = true;
    this.emitStatus('resyncing', reason);
    this.#socket.recycle();
  }

  #onMessage(text: string): void {
    const doc = this.readJson(text, 'user data payload');
    if (doc === undefined) return;
    const ev = this.parse(doc);
    if (ev === undefined) return;
    if (ev.type === 'listenKeyExpired') {
      this.#replaceKey('listen key expired');
      return;
    }
    this.deliver(ev);
  }

  /** Stops renewal, closes the connection and the listen key. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#keepAlive !== undefined) this.t.timers.clearTimeout(this.#keepAlive);
    await this.#socket.close();
    const key = this.#key;
    if (key !== undefined) {
      try {
        await this.opts.api.closeListenKey(this.opts.symbolType, key);
      } catch (err) {
        this.log.info({ err: (err as Error).message }, 'closing the listen key failed (it expires by itself)');
      }
    }
    this.finish();
  }
}
