/**
 * A WebSocket that stays connected: dead-connection detection through pings, reconnect with
 * exponential backoff and jitter, and an async URL provider so a user stream can obtain a fresh
 * listen key (or token) before each connection. Used by the user data streams.
 */
import type { Logger } from 'pino';
import WebSocket from 'ws';
import { MAX_STREAM_FRAME_BYTES } from './frame-limit.js';
import { closeSocket } from './close-socket.js';
import { type BackoffOptions, type TimerHandle, backoffDelay, timing, type TimingDeps } from './timing.js';
import { probeFrames } from './frame-probe.js';
import { FrameTurns } from './frame-turns.js';

/** Options of a managed socket. */
export interface ManagedSocketOptions extends TimingDeps {
  /** Resolves the URL for the next connection attempt (may create a listen key). */
  readonly url: () => Promise<string>;
  readonly onOpen: (reconnected: boolean) => void;
  readonly onMessage: (text: string) => void;
  readonly onDown: (reason: string) => void;
  readonly backoff?: BackoffOptions;
  readonly pingIntervalMs?: number;
  readonly pongTimeoutMs?: number;
  /**
   * Live trading: after a frame that led to an order (a fill the strategy answers), the rest of
   * its socket read waits until that order's request is written (frame-turns.ts).
   */
  readonly holdFramesForOrders?: boolean;
  readonly logger: Logger;
}

/** A self-reconnecting WebSocket. */
export class ManagedSocket {
  #ws: WebSocket | undefined;
  #open = false;
  #everOpen = false;
  #attempt = 0;
  #closed = false;
  #retry: TimerHandle | undefined;
  #heartbeat: TimerHandle | undefined;
  #lastFrameAt = 0;
  readonly #t: ReturnType<typeof timing>;

  constructor(private readonly opts: ManagedSocketOptions) {
    this.#t = timing(opts);
  }

  /** Whether a connection is open. */
  get isOpen(): boolean {
    return this.#open;
  }

  /** Starts connecting. */
  start(): void {
    void this.#connect();
  }

  /** Sends text on the open connection; false when not connected. */
  send(text: string): boolean {
    if (!this.#open || this.#ws === undefined) return false;
    this.#ws.send(text);
    return true;
  }

  /** Closes the current connection on purpose and connects again (e.g. with a new listen key). */
  recycle(): void {
    this.#ws?.terminate();
  }

  async #connect(): Promise<void> {
    if (this.#closed) return;
    let url: string;
    try {
      url = await this.opts.url();
    } catch (err) {
      this.opts.logger.warn({ err: (err as Error).message }, 'could not prepare user stream connection');
      this.#schedule();
      return;
    }
    if (this.#closed) return;
    const ws = new WebSocket(url, { maxPayload: MAX_STREAM_FRAME_BYTES });
    this.#ws = ws;
    ws.on('open', () => {
      this.#open = true;
      this.#attempt = 0;
      this.#lastFrameAt = this.#t.clock.now();
      this.#armHeartbeat(ws);
      const reconnected = this.#everOpen;
      this.#everOpen = true;
      this.opts.onOpen(reconnected);
    });
    probeFrames(ws);
    const turns = this.opts.holdFramesForOrders === true ? new FrameTurns<WebSocket.RawData>((d) => this.opts.onMessage(d.toString())) : undefined;
    ws.on('message', (d: WebSocket.RawData) => {
      this.#lastFrameAt = this.#t.clock.now();
      if (turns) turns.push(d);
      else this.opts.onMessage(d.toString());
    });
    ws.on('ping', () => (this.#lastFrameAt = this.#t.clock.now()));
    ws.on('pong', () => (this.#lastFrameAt = this.#t.clock.now()));
    ws.on('error', (err) => this.opts.logger.warn({ err: err.message }, 'user stream connection error'));
    ws.on('close', (code) => {
      if (this.#ws !== ws) return;
      const wasOpen = this.#open;
      this.#open = false;
      this.#ws = undefined;
      if (this.#heartbeat !== undefined) this.#t.timers.clearTimeout(this.#heartbeat);
      if (this.#closed) return;
      if (wasOpen) this.opts.onDown(`closed ${code}`);
      this.#schedule();
    });
  }

  #schedule(): void {
    if (this.#closed || this.#retry !== undefined) return;
    const delay = backoffDelay(this.#attempt++, this.opts.backoff, this.#t.random);
    this.#retry = this.#t.timers.setTimeout(() => {
      this.#retry = undefined;
      void this.#connect();
    }, delay);
  }

  #armHeartbeat(ws: WebSocket): void {
    const interval = this.opts.pingIntervalMs ?? 30_000;
    const timeout = this.opts.pongTimeoutMs ?? 10_000;
    const tick = (): void => {
      if (this.#ws !== ws || !this.#open) return;
      if (this.#t.clock.now() - this.#lastFrameAt > interval + timeout) {
        this.opts.logger.warn('user stream connection silent: treating it as dead');
        ws.terminate();
        return;
      }
      try {
        ws.ping();
      } catch {
        // Closing socket: the close handler reconnects.
      }
      this.#heartbeat = this.#t.timers.setTimeout(tick, interval);
    };
    this.#heartbeat = this.#t.timers.setTimeout(tick, interval);
  }

  /** Closes for good. */
  async close(): Promise<void> {
    this.#closed = true;
    if (this.#retry !== undefined) this.#t.timers.clearTimeout(this.#retry);
    if (this.#heartbeat !== undefined) this.#t.timers.clearTimeout(this.#heartbeat);
    const ws = this.#ws;
    this.#ws = undefined;
    this.#open = false;
    if (ws !== undefined) await closeSocket(ws);
  }
}
