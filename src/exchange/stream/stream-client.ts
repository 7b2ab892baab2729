/**
 * One logical market-data connection to a stream host, kept alive for as long as the client runs:
 * raw `/ws/<name>` or combined `/stream?streams=a/b`, live control requests matched to replies by
 * id, dead-connection detection, reconnect with exponential backoff and jitter (resubscribing
 * everything), and proactive rotation ahead of the server's 24-hour connection limit without
 * losing or duplicating messages. Payloads become typed events; malformed ones are logged and
 * counted, never thrown into the caller.
 *
 * Rotation: the new connection opens while the old one still delivers. During a grace period only
 * the old connection's events are emitted and the new one's are held; then the held events newer
 * than what was emitted are released and the new connection takes over. A diff-depth event that
 * straddles the cut (U <= last u < u) has its U moved to last u + 1: quantities are absolute, so
 * re-applying the overlapping part is a no-op and the book's continuity rule stays exact.
 */
import { type Logger, pino } from 'pino';
import { Subject, type Observable } from 'rxjs';
import WebSocket from 'ws';
import { MAX_STREAM_FRAME_BYTES } from './frame-limit.js';
import { StateError, StreamError } from '../../core/errors.js';
import type { ConnectionStatusEvent, DepthDiffEvent, MarketEvent } from '../../core/marketEvents.js';
import { type DroppedPayload, attributeDropped } from './dropped-depth.js';
import { type SequenceKey, keyAfter, sequenceKeyOf, streamKeyOf } from './event-key.js';
import { closeSocket } from './close-socket.js';
import { ControlRequests } from './control-requests.js';
import { parseMarketPayload } from './parse-market.js';
import { type BackoffOptions, type TimingDeps, backoffDelay, timing } from './timing.js';
import type { TimerHandle } from './timing.js';
import { scrubSecretText } from '../../core/secretScrub.js';
import { parseExchangeJson } from '../transport/exchangeJson.js';
import { probeFrames } from './frame-probe.js';
import { FrameTurns } from './frame-turns.js';

/** Options of a stream client. */
export interface StreamClientOptions extends TimingDeps {
  /** Host base URL ({stream_url} etc.); a trailing `/stream` or `/ws` is ignored. */
  readonly url: string;
  /** Streams to open with. */
  readonly streams?: readonly string[];
  /** Combined `/stream?streams=` (default) or raw `/ws/<name>` connection. */
  readonly combined?: boolean;
  /** Label in status events, e.g. 'market:type1'. */
  readonly name?: string;
  /** Maps wire symbols to the caller's spelling. */
  readonly symbolOf?: (wire: string) => string;
  readonly backoff?: BackoffOptions;
  /** Client ping period; a connection silent for pingIntervalMs + pongTimeoutMs is dead (defaults 30 s, 10 s). */
  readonly pingIntervalMs?: number;
  readonly pongTimeoutMs?: number;
  /** Rotate connections older than this (default 23 h 30 min; the server's limit is 24 h). */
  readonly maxConnectionAgeMs?: number;
  /** How long old and new connections overlap during rotation (default 5 s). */
  readonly rotationGraceMs?: number;
  /** Control request timeout (default 10 s). */
  readonly requestTimeoutMs?: number;
  /**
   * Called with the verbatim text of every data frame whose events were delivered (after
   * rotation de-duplication), for the recorder.
   */
  readonly onFrame?: (text: string) => void;
  /**
   * Live trading: after a frame that probably led to an order, the rest of its socket read waits
   * until that order's request is written (frame-turns.ts). Off by default (recording, paper).
   */
  readonly holdFramesForOrders?: boolean;
  readonly logger?: Logger;
}

/** Counters for monitoring and tests. */
export interface StreamClientStats {
  messages: number;
  events: number;
  malformed: number;
  connects: number;
  reconnects: number;
  rotations: number;
  duplicatesDropped: number;
}

interface Conn {
  readonly ws: WebSocket;
  readonly gen: number;
  /** Single stream name of a raw connection (context for payloads without a name). */
  readonly rawStream: string | undefined;
  openedAt: number;
  lastFrameAt: number;
  open: boolean;
  heartbeat: TimerHandle | undefined;
  ageTimer: TimerHandle | undefined;
}

interface Rotation {
  readonly next: Conn;
  held: { stream: string | undefined; events: MarketEvent[]; text: string }[];
  grace: TimerHandle | undefined;
}

/** A self-healing market-data WebSocket connection. */
export class StreamClient {
  readonly stats: StreamClientStats = { messages: 0, events: 0, malformed: 0, connects: 0, reconnects: 0, rotations: 0, duplicatesDropped: 0 };
  readonly #events = new Subject<MarketEvent>();
  readonly #status = new Subject<ConnectionStatusEvent>();
  readonly #dropped = new Subject<DroppedPayload>();
  readonly #desired: Set<string>;
  readonly #base: string;
  readonly #combined: boolean;
  readonly #t: ReturnType<typeof timing>;
  readonly #log: Logger;
  readonly #requests: ControlRequests;
  readonly #lastKey = new Map<string, SequenceKey>();
  #conn: Conn | undefined;
  #rotation: Rotation | undefined;
  #gen = 0;
  #attempt = 0;
  #reconnectTimer: TimerHandle | undefined;
  #closed = false;
  #started = false;
  #everUp = false;

  constructor(private readonly opts: StreamClientOptions) {
    this.#desired = new Set(opts.streams ?? []);
    this.#base = opts.url.replace(/\/+$/, '').replace(/\/(stream|ws)$/, '');
    this.#combined = opts.combined ?? true;
    this.#t = timing(opts);
    this.#log = opts.logger ?? pino({ hooks: { streamWrite: scrubSecretText }, name: 'kancil.stream' });
    this.#requests = new ControlRequests(this.#t.timers, opts.requestTimeoutMs ?? 10_000, this.#log);
  }

  /** Typed market events, in arrival order per stream, without duplicates. */
  get events$(): Observable<MarketEvent> {
    return this.#events.asObservable();
  }

  /** Connection status: up, down (with reason), and up again after a reconnect. */
  get status$(): Observable<ConnectionStatusEvent> {
    return this.#status.asObservable();
  }

  /**
   * Payloads dropped as malformed, with the diff-depth books each may have changed, so a book can
   * stop being read and resynchronise at once instead of at the next diff.
   */
  get dropped$(): Observable<DroppedPayload> {
    return this.#dropped.asObservable();
  }

  /** Streams that will be (re)subscribed on every connection. */
  get streams(): string[] {
    return [...this.#desired];
  }

  /** Whether a connection is currently open. */
  get connected(): boolean {
    return this.#conn?.open === true;
  }

  /** Opens the connection (idempotent). */
  start(): void {
    if (this.#closed) throw new StateError('stream client is closed');
    if (this.#started) return;
    this.#started = true;
    this.#connect(false);
  }

  /** Adds streams; sent as SUBSCRIBE when connected, and part of every later (re)connection. */
  async subscribe(names: readonly string[]): Promise<void> {
    for (const n of names) this.#desired.add(n);
    if (this.connected) await this.#request('SUBSCRIBE', [...names]);
  }

  /** Removes streams. */
  async unsubscribe(names: readonly string[]): Promise<void> {
    for (const n of names) this.#desired.delete(n);
    if (this.connected) await this.#request('UNSUBSCRIBE', [...names]);
  }

  /** LIST_SUBSCRIPTIONS on the live connection. */
  async listSubscriptions(): Promise<string[]> {
    const r = await this.#request('LIST_SUBSCRIPTIONS', undefined);
    if (!Array.isArray(r)) throw new StreamError(-1, `LIST_SUBSCRIPTIONS returned ${JSON.stringify(r)}`);
    return r.map(String);
  }

  /** SET_PROPERTY, e.g. ('combined', true). Values are sent as given so server-side validation errors surface. */
  async setProperty(name: unknown, value: unknown): Promise<void> {
    await this.#request('SET_PROPERTY', [name, value]);
  }

  /** GET_PROPERTY, e.g. ('combined'). */
  async getProperty(name: unknown): Promise<unknown> {
    return this.#request('GET_PROPERTY', [name]);
  }

  /** Sends any control request (for tests of error replies); resolves with `result`. */
  request(method: string, params: unknown): Promise<unknown> {
    return this.#request(method, params);
  }

  /** Closes everything; no reconnect afterwards. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#reconnectTimer !== undefined) this.#t.timers.clearTimeout(this.#reconnectTimer);
    const conns = [this.#conn, this.#rotation?.next].filter((c): c is Conn => c !== undefined);
    if (this.#rotation?.grace !== undefined) this.#t.timers.clearTimeout(this.#rotation.grace);
    this.#rotation = undefined;
    this.#conn = undefined;
    this.#requests.failAll();
    await Promise.all(conns.map((c) => this.#shut(c)));
    this.#events.complete();
    this.#status.complete();
    this.#dropped.complete();
  }

  #url(): { url: string; raw: string | undefined; rest: string[] } {
    const names = [...this.#desired];
    if (this.#combined) return { url: names.length > 0 ? `${this.#base}/stream?streams=${names.join('/')}` : `${this.#base}/stream`, raw: undefined, rest: [] };
    const [first, ...rest] = names;
    return { url: first === undefined ? `${this.#base}/ws` : `${this.#base}/ws/${first}`, raw: first !== undefined && rest.length === 0 ? first : undefined, rest };
  }

  #connect(forRotation: boolean): Conn {
    const { url, raw, rest } = this.#url();
    const gen = ++this.#gen;
    const ws = new WebSocket(url, { maxPayload: MAX_STREAM_FRAME_BYTES });
    const now = this.#t.clock.now();
    const conn: Conn = { ws, gen, rawStream: raw, openedAt: now, lastFrameAt: now, open: false, heartbeat: undefined, ageTimer: undefined };
    if (!forRotation) this.#conn = conn;
    ws.on('open', () => {
      conn.open = true;
      conn.openedAt = conn.lastFrameAt = this.#t.clock.now();
      this.stats.connects++;
      this.#armHeartbeat(conn);
      this.#armAge(conn);
      if (rest.length > 0) this.#requests.send(conn.ws, conn.gen, 'SUBSCRIBE', rest).catch((err: Error) => this.#log.error({ err: err.message }, 'resubscribe failed'));
      if (forRotation) this.#onRotationOpen(conn);
      else this.#onPrimaryOpen();
    });
    probeFrames(ws);
    const turns = this.opts.holdFramesForOrders === true ? new FrameTurns<WebSocket.RawData>((data) => this.#onMessage(conn, data.toString())) : undefined;
    ws.on('message', (data: WebSocket.RawData) => {
      conn.lastFrameAt = this.#t.clock.now();
      if (turns) turns.push(data);
      else this.#onMessage(conn, data.toString());
    });
    ws.on('ping', () => {
      conn.lastFrameAt = this.#t.clock.now();
    });
    ws.on('pong', () => {
      conn.lastFrameAt = this.#t.clock.now();
    });
    ws.on('error', (err) => this.#log.warn({ err: err.message, url: this.#base }, 'stream connection error'));
    ws.on('close', (code, reason) => this.#onClose(conn, `closed ${code}${reason.length ? ` ${reason.toString()}` : ''}`));
    return conn;
  }

  #onPrimaryOpen(): void {
    const reconnected = this.#everUp;
    this.#everUp = true;
    this.#attempt = 0;
    if (reconnected) this.stats.reconnects++;
    this.#emitStatus('up', reconnected ? 'reconnected' : 'connected');
  }

  #emitStatus(status: ConnectionStatusEvent['status'], reason: string): void {
    this.#status.next({ type: 'connection', E: this.#t.clock.now(), connection: this.opts.name ?? `market:${this.#base}`, status, reason });
  }

  #armHeartbeat(conn: Conn): void {
    const interval = this.opts.pingIntervalMs ?? 30_000;
    const timeout = this.opts.pongTimeoutMs ?? 10_000;
    const tick = (): void => {
      if (!conn.open) return;
      if (this.#t.clock.now() - conn.lastFrameAt > interval + timeout) {
        this.#log.warn({ url: this.#base, gen: conn.gen }, 'stream connection silent: treating it as dead');
        conn.ws.terminate();
        return;
      }
      try {
        conn.ws.ping();
      } catch {
        // A ping on a closing socket fails; the close handler takes over.
      }
      conn.heartbeat = this.#t.timers.setTimeout(tick, interval);
    };
    conn.heartbeat = this.#t.timers.setTimeout(tick, interval);
  }

  #armAge(conn: Conn): void {
    const maxAge = this.opts.maxConnectionAgeMs ?? 23.5 * 3_600_000;
    if (conn.ageTimer !== undefined) this.#t.timers.clearTimeout(conn.ageTimer);
    const due = Math.max(0, conn.openedAt + maxAge - this.#t.clock.now());
    conn.ageTimer = this.#t.timers.setTimeout(() => {
      conn.ageTimer = undefined;
      this.#startRotation(conn);
    }, due);
  }

  #startRotation(old: Conn): void {
    if (this.#closed || this.#conn !== old || this.#rotation !== undefined) return;
    this.#log.info({ url: this.#base }, 'rotating stream connection ahead of the server lifetime limit');
    const next = this.#connect(true);
    this.#rotation = { next, held: [], grace: undefined };
  }

  #onRotationOpen(next: Conn): void {
    const rot = this.#rotation;
    if (rot?.next !== next) return;
    rot.grace = this.#t.timers.setTimeout(() => this.#finishRotation(), this.opts.rotationGraceMs ?? 5_000);
  }

  /** Releases the held events the old connection did not deliver, then makes the new connection primary. */
  #finishRotation(): void {
    const rot = this.#rotation;
    if (rot === undefined) return;
    if (rot.grace !== undefined) this.#t.timers.clearTimeout(rot.grace);
    this.#rotation = undefined;
    const old = this.#conn;
    this.#conn = rot.next;
    this.stats.rotations++;
    // Its age timer may have fired while it was still the replacement: arm it again as primary.
    if (rot.next.open) this.#armAge(rot.next);
    for (const h of rot.held) this.#deliver(h.stream, h.events, h.text);
    if (old !== undefined) {
      this.#requests.failConnection(old.gen, 'connection rotated');
      void this.#shut(old);
    }
    if (!rot.next.open) {
      // The replacement died before the cut-over: fall back to a normal reconnect.
      this.#scheduleReconnect('replacement connection closed during rotation');
    }
  }

  #onClose(conn: Conn, reason: string): void {
    const wasOpen = conn.open;
    conn.open = false;
    this.#clearConnTimers(conn);
    this.#requests.failConnection(conn.gen, reason);
    if (this.#closed) return;
    const rot = this.#rotation;
    if (rot?.next === conn) {
      // The replacement failed; keep the old one and try again later.
      if (rot.grace !== undefined) this.#t.timers.clearTimeout(rot.grace);
      this.#rotation = undefined;
      const old = this.#conn;
      if (old?.open) old.ageTimer = this.#t.timers.setTimeout(() => this.#startRotation(old), backoffDelay(0, this.opts.backoff, this.#t.random));
      return;
    }
    if (conn !== this.#conn) return; // an old connection retired by rotation
    if (rot !== undefined && rot.next.open) {
      // The server ended the old connection first: cut over at once (held events are released).
      this.#finishRotation();
      return;
    }
    if (rot !== undefined) {
      // The replacement is still connecting: drop it and reconnect normally.
      if (rot.grace !== undefined) this.#t.timers.clearTimeout(rot.grace);
      this.#rotation = undefined;
      void this.#shut(rot.next);
    }
    if (wasOpen) this.#emitStatus('down', reason);
    this.#scheduleReconnect(reason);
  }

  #scheduleReconnect(reason: string): void {
    if (this.#closed || this.#reconnectTimer !== undefined) return;
    const delay = backoffDelay(this.#attempt++, this.opts.backoff, this.#t.random);
    this.#log.info({ url: this.#base, delay, reason }, 'stream reconnect scheduled');
    this.#conn = undefined;
    this.#reconnectTimer = this.#t.timers.setTimeout(() => {
      this.#reconnectTimer = undefined;
      if (this.#closed) return;
      // Per-stream ordering state is from the previous connection; a reconnect has no overlap.
      this.#lastKey.clear();
      this.#connect(false);
    }, delay);
  }

  #clearConnTimers(conn: Conn): void {
    if (conn.heartbeat !== undefined) this.#t.timers.clearTimeout(conn.heartbeat);
    if (conn.ageTimer !== undefined) this.#t.timers.clearTimeout(conn.ageTimer);
    conn.heartbeat = conn.ageTimer = undefined;
  }

  #shut(conn: Conn): Promise<void> {
    this.#clearConnTimers(conn);
    conn.open = false;
    return closeSocket(conn.ws);
  }

  #request(method: string, params: unknown): Promise<unknown> {
    const conn = this.#conn;
    if (this.#closed) return Promise.reject(new StateError('stream client is closed'));
    if (conn === undefined || !conn.open) return Promise.reject(new StateError('stream not connected'));
    return this.#requests.send(conn.ws, conn.gen, method, params);
  }

  #onMessage(conn: Conn, text: string): void {
    this.stats.messages++;
    let doc: unknown;
    try {
      // Trade ids are 64-bit: quoted first so one past 2^53 keeps its digits (the user streams do the same).
      doc = parseExchangeJson(text);
    } catch (err) {
      this.#malformed(conn, text, undefined, conn.rawStream, err as Error);
      return;
    }
    if (typeof doc === 'object' && doc !== null && !Array.isArray(doc)) {
      const o = doc as Record<string, unknown>;
      if (!('stream' in o) && !('e' in o) && ('result' in o || 'error' in o || 'code' in o)) {
        this.#requests.onReply(o);
        return;
      }
    }
    let stream: string | undefined = conn.rawStream;
    let data: unknown = doc;
    const env = typeof doc === 'object' && doc !== null && !Array.isArray(doc) ? (doc as Record<string, unknown>) : undefined;
    if (env !== undefined && typeof env.stream === 'string' && 'data' in env) {
      stream = env.stream;
      data = env.data;
    }
    let events: MarketEvent[];
    try {
      events = parseMarketPayload(data, { stream, recvTime: this.#t.clock.now(), symbolOf: this.opts.symbolOf });
    } catch (err) {
      this.#malformed(conn, text, data, stream, err as Error);
      return;
    }
    const rot = this.#rotation;
    if (conn.gen === this.#conn?.gen) {
      this.#deliver(stream, events, text);
    } else if (rot?.next === conn) {
      rot.held.push({ stream, events, text });
      if (rot.held.length > 100_000) this.#finishRotation();
    } else {
      this.stats.duplicatesDropped += events.length;
    }
  }

  #deliver(stream: string | undefined, events: readonly MarketEvent[], text: string): void {
    let any = false;
    for (const ev of events) any = this.#emit(stream, ev) || any;
    if (any) this.opts.onFrame?.(text);
  }

  #emit(stream: string | undefined, ev: MarketEvent): boolean {
    const sk = streamKeyOf(stream, ev);
    const key = sequenceKeyOf(ev);
    const last = this.#lastKey.get(sk);
    if (last !== undefined && !keyAfter(key, last)) {
      this.stats.duplicatesDropped++;
      return false;
    }
    this.#lastKey.set(sk, key);
    let out: MarketEvent = ev;
    if (ev.type === 'depthDiff' && typeof last === 'number' && ev.firstUpdateId <= last) out = { ...ev, firstUpdateId: last + 1 } satisfies DepthDiffEvent;
    this.stats.events++;
    this.#events.next(out);
    return true;
  }

  /** `data` is the parsed payload (undefined when the text was not JSON), `stream` its stream when known. */
  #malformed(conn: Conn, text: string, data: unknown, stream: string | undefined, err: Error): void {
    this.stats.malformed++;
    this.#log.warn({ err: err.message, payload: text.length > 300 ? `${text.slice(0, 300)}…` : text }, 'malformed stream payload skipped');
    // A retired connection's payloads are duplicates of what the current one delivers. The
    // replacement's (during rotation) are reported too: the old connection may not deliver that one.
    if (conn.gen !== this.#conn?.gen && conn !== this.#rotation?.next) return;
    this.#dropped.next(attributeDropped(text, data, stream, [...this.#desired], this.opts.symbolOf ?? ((w) => w), err.message));
  }
}
