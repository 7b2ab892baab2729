/**
 * WebSocket market and user data streams on the three stream hosts ({stream_url} type 1,
 * {stream_url_next} type 2, {stream_url_new} type 3): raw `/ws/<name>[/<name>...]`, combined
 * `/stream?streams=a/b`, user data `/ws/<listenKey>`, live control messages, server pings with
 * a pong deadline, and a connection lifetime. One housekeeping timer (100 ms) drives depth
 * batching, partial depth, tickers, klines and the ping/lifetime checks.
 *
 * Decisions where the spec is silent:
 * - `/ws/<name>` whose name is neither a stream name nor an open listen key is refused at the
 *   upgrade with HTTP 401, so a client holding an expired key learns it at once.
 * - An expiring or closed listen key closes its connections with code 4001 (reason
 *   "listen key expired"); the spec lists no listenKeyExpired event.
 * - User data is split by symbol type as the hosts and key paths are: an executionReport goes to
 *   type 1 listen keys ({stream_url}) and the WebSocket API (type 1 only) when its symbol is type
 *   1, to type 3 (private-n) keys when it is type 3, and nowhere for type 2 ("not supported").
 *   outboundAccountPosition carries account-wide balances, so every user stream of the account
 *   gets it (the spec does not split it).
 * - Lifetime end closes with code 1000 and reason "connection lifetime reached"; a missed pong
 *   terminates the socket.
 * - Diff depth is sent in batches per interval (depth-batches.ts).
 * - A client frame over MAX_INBOUND_FRAME_BYTES closes with 1009 (message too big) once its header
 *   announces the length, so it is never buffered; 1024 stream names fit in 30 KB.
 */
import type http from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocket, WebSocketServer } from 'ws';
import type { Clock, KlineIntervalName, SymbolInfo, SymbolTypeCode } from '../core/index.js';
import type { SandboxSymbol } from './config.js';
import type { EventBatch, ExchangeState } from './exchange-state.js';
import type { FaultController } from './faults.js';
import { SandboxFailures } from './failures.js';
import { DepthBatches } from './depth-batches.js';
import { KlinePushes } from './kline-pushes.js';
import { accountPositionPayload, aggTradePayload, executionReportPayload, miniTickerPayload, payloadSymbol, tradePayload } from './stream-payloads.js';
import { parseStreamName, type StreamName } from './stream-names.js';
import { MAX_INBOUND_FRAME_BYTES, controlError, controlResult, frameText, parseControl } from './ws-control.js';
import type { UserStreamRegistry } from './user-streams.js';

/** Timing settings of stream connections. */
export interface StreamTiming {
  readonly pingIntervalMs: number;
  readonly pongTimeoutMs: number;
  readonly connectionLifetimeMs: number;
}

interface Conn {
  readonly id: number;
  readonly ws: WebSocket;
  readonly host: StreamHost;
  combined: boolean;
  readonly subs: Set<string>;
  readonly listenKey: string | undefined;
  readonly account: string | undefined;
  readonly openedAt: number;
  lastPingAt: number;
  lastPongAt: number;
}

interface StreamHost {
  readonly name: string;
  readonly types: readonly SymbolTypeCode[];
  readonly wss: WebSocketServer;
}

const TICK_MS = 100;
const TEXT = { binary: false } as const;
/** A subscriber this far behind (bytes queued) is disconnected rather than buffered without bound. */
const MAX_BUFFERED_BYTES = 16 * 1024 * 1024;

/** A receiver of user data payloads: the account, the payload, and the symbol type of an order event (undefined: account-wide). */
export type UserEventListener = (accountId: string, payload: Record<string, unknown>, symbolType: SymbolTypeCode | undefined) => void;

/** Public information about one open stream connection (for tests and the admin endpoint). */
export interface ConnectionInfo {
  readonly id: number;
  readonly host: string;
  readonly combined: boolean;
  readonly subscriptions: readonly string[];
  readonly listenKey?: string;
}

/** The stream server shared by the three stream hosts. */
export class StreamServer {
  readonly #conns = new Map<number, Conn>();
  /** Stream name -> connections subscribed to it, per host. */
  readonly #index = new Map<string, Set<Conn>>();
  readonly #hosts: StreamHost[] = [];
  readonly #depth: DepthBatches;
  readonly #klinePushes: KlinePushes;
  #nextId = 1;
  #ticks = 0;
  #timer: NodeJS.Timeout | undefined;
  readonly #unsubscribe: () => void;

  constructor(
    readonly state: ExchangeState,
    readonly registry: UserStreamRegistry,
    readonly faults: FaultController,
    readonly clock: Clock,
    readonly timing: StreamTiming,
    readonly failures = new SandboxFailures(),
  ) {
    this.#depth = new DepthBatches(faults);
    this.#klinePushes = new KlinePushes(state.market, (key) => this.#klineOf(key));
    this.#unsubscribe = state.onBatch(failures.guard('stream fan-out', (b) => this.#onBatch(b)));
    this.#timer = setInterval(failures.guard('stream housekeeping', () => this.#tick()), TICK_MS);
  }

  /** Serves streams on `server` for symbols of `types`. */
  attach(name: string, server: http.Server, types: readonly SymbolTypeCode[]): void {
    const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_INBOUND_FRAME_BYTES });
    const host: StreamHost = { name, types, wss };
    this.#hosts.push(host);
    server.on('upgrade', (req: http.IncomingMessage, socket: Duplex, head: Buffer) => this.#upgrade(host, req, socket, head));
  }

  #upgrade(host: StreamHost, req: http.IncomingMessage, socket: Duplex, head: Buffer): void {
    const url = new URL(req.url ?? '/', 'ws://sandbox');
    const refuse = (status: number, text: string): void => {
      socket.end(`HTTP/1.1 ${status} ${text}\r\nConnection: close\r\nContent-Type: application/json\r\n\r\n${JSON.stringify({ code: -1, msg: text })}`);
    };
    let combined = false;
    let streams: string[] = [];
    let listenKey: string | undefined;
    let account: string | undefined;
    if (url.pathname === '/stream') {
      combined = true;
      const list = url.searchParams.get('streams');
      streams = list ? list.split('/').filter((s) => s !== '') : [];
    } else if (url.pathname === '/ws' || url.pathname === '/ws/') {
      streams = [];
    } else if (url.pathname.startsWith('/ws/')) {
      const names = url.pathname.slice(4).split('/').filter((s) => s !== '');
      const first = names[0] as string;
      if (names.length === 1 && parseStreamName(first) === undefined) {
        const key = this.registry.listenKeyAccount(first);
        // Type 2 has no user data stream; type 1 keys on {stream_url}, type 3 keys on {stream_url_new}.
        if (!key || !host.types.includes(key.kind)) return refuse(401, 'Invalid listen key');
        listenKey = first;
        account = key.account;
      } else {
        for (const n of names) if (parseStreamName(n) === undefined) return refuse(400, `Invalid stream name ${n}`);
        streams = names;
      }
    } else return refuse(404, 'Not Found');
    if (combined) for (const n of streams) if (parseStreamName(n) === undefined) return refuse(400, `Invalid stream name ${n}`);
    host.wss.handleUpgrade(req, socket, head, (ws) => {
      const now = this.clock.now();
      const conn: Conn = { id: this.#nextId++, ws, host, combined, subs: new Set(), listenKey, account, openedAt: now, lastPingAt: now, lastPongAt: now };
      this.#conns.set(conn.id, conn);
      for (const s of streams) this.#sub(conn, s);
      ws.on('pong', () => {
        conn.lastPongAt = this.clock.now();
      });
      const onText = this.failures.guard('stream control message', (text: string) => this.#control(conn, text));
      ws.on('message', (data, isBinary) => {
        if (!isBinary && listenKey === undefined) onText(frameText(data));
      });
      ws.on('close', () => this.#drop(conn));
      ws.on('error', () => this.#drop(conn));
    });
  }

  #sub(conn: Conn, name: string): void {
    if (conn.subs.has(name)) return;
    conn.subs.add(name);
    const key = `${conn.host.name}|${name}`;
    let set = this.#index.get(key);
    if (!set) {
      this.#index.set(key, (set = new Set()));
      this.#klinePushes.subscribed(key);
    }
    set.add(conn);
  }

  #unsub(conn: Conn, name: string): void {
    if (!conn.subs.delete(name)) return;
    const key = `${conn.host.name}|${name}`;
    const set = this.#index.get(key);
    set?.delete(conn);
    if (set && set.size === 0) this.#index.delete(key);
  }

  #drop(conn: Conn): void {
    if (!this.#conns.delete(conn.id)) return;
    for (const s of [...conn.subs]) this.#unsub(conn, s);
  }

  #control(conn: Conn, text: string): void {
    const parsed = parseControl(text);
    if (!parsed.ok) {
      conn.ws.send(parsed.reply);
      return;
    }
    const c = parsed.command;
    switch (c.method) {
      case 'SUBSCRIBE':
        for (const s of c.streams) this.#sub(conn, s);
        conn.ws.send(controlResult(null, c.id));
        return;
      case 'UNSUBSCRIBE':
        for (const s of c.streams) this.#unsub(conn, s);
        conn.ws.send(controlResult(null, c.id));
        return;
      case 'LIST_SUBSCRIPTIONS':
        conn.ws.send(controlResult([...conn.subs], c.id));
        return;
      case 'SET_PROPERTY':
        conn.combined = c.value;
        conn.ws.send(controlResult(null, c.id));
        return;
      case 'GET_PROPERTY':
        conn.ws.send(controlResult(conn.combined, c.id));
        return;
      default: {
        const never: never = c;
        conn.ws.send(controlError(2, `Invalid request: ${String(never)}`));
      }
    }
  }

  /** Sends `payload` to every subscriber of `name` on hosts serving `type`. */
  #publish(type: SymbolTypeCode, name: string, payload: unknown): void {
    // Encoded once per event and shared by every subscriber (sent as text frames).
    let raw: Buffer | undefined;
    let wrapped: Buffer | undefined;
    for (const host of this.#hosts) {
      if (!host.types.includes(type)) continue;
      const set = this.#index.get(`${host.name}|${name}`);
      if (!set) continue;
      for (const conn of set) {
        if (conn.ws.readyState !== WebSocket.OPEN) continue;
        if (conn.ws.bufferedAmount > MAX_BUFFERED_BYTES) {
          conn.ws.terminate();
          this.#drop(conn);
          continue;
        }
        if (conn.combined) conn.ws.send((wrapped ??= Buffer.from(JSON.stringify({ stream: name, data: payload }))), TEXT);
        else conn.ws.send((raw ??= Buffer.from(JSON.stringify(payload))), TEXT);
      }
    }
  }

  #hasSubscribers(type: SymbolTypeCode, name: string): boolean {
    for (const host of this.#hosts) if (host.types.includes(type) && this.#index.has(`${host.name}|${name}`)) return true;
    return false;
  }

  #streamSym(s: SandboxSymbol): string {
    return payloadSymbol(s.info).toLowerCase();
  }

  #onBatch(batch: EventBatch): void {
    const now = this.clock.now();
    for (const ev of batch.events) {
      switch (ev.type) {
        case 'trade': {
          const s = this.state.symbols.get(ev.symbol);
          if (s) this.#publish(s.info.type, `${this.#streamSym(s)}@trade`, tradePayload(s.info, ev, now));
          break;
        }
        case 'depthUpdate':
          this.#depth.add(ev);
          break;
        case 'executionReport': {
          const s = this.state.symbols.get(ev.s);
          if (s) this.#sendUser(ev.accountId, executionReportPayload(ev), s.info.type);
          break;
        }
        case 'outboundAccountPosition': {
          const account = this.state.accounts.get(ev.accountId);
          if (account) this.#sendUser(ev.accountId, accountPositionPayload(ev, account));
          break;
        }
        case 'listStatus':
        case 'referencePrice':
          break;
        default: {
          const never: never = ev;
          void never;
        }
      }
    }
    for (const a of batch.aggTrades) {
      // Aggregates carry no symbol; find it through the trade id range of this batch.
      const t = batch.events.find((e) => e.type === 'trade' && e.id === a.f);
      if (!t || t.type !== 'trade') continue;
      const s = this.state.symbols.get(t.symbol);
      if (s) this.#publish(s.info.type, `${this.#streamSym(s)}@aggTrade`, aggTradePayload(s.info, a, now));
    }
  }

  /** Events held back by the reorder fault, and how many to hold before releasing them reversed. */
  #held: { accountId: string; payload: Record<string, unknown>; symbolType: SymbolTypeCode | undefined }[] = [];
  #holdCount = 0;

  /** `symbolType` is the order's symbol type; undefined for account-wide events (every user stream). */
  #sendUser(accountId: string, payload: Record<string, unknown>, symbolType?: SymbolTypeCode): void {
    if (this.#holdCount === 0) this.#holdCount = this.faults.takeReorder();
    if (this.#holdCount > 0) {
      this.#held.push({ accountId, payload, symbolType });
      if (this.#held.length >= this.#holdCount) this.#releaseHeld();
      return;
    }
    this.#deliverUser(accountId, payload, symbolType);
  }

  #releaseHeld(): void {
    const held = this.#held.reverse();
    this.#held = [];
    this.#holdCount = 0;
    for (const h of held) this.#deliverUser(h.accountId, h.payload, h.symbolType);
  }

  /**
   * User data goes to listen-key connections here (a key's host serves its symbol type) and to
   * WebSocket API subscriptions through the listener.
   */
  #deliverUser(accountId: string, payload: Record<string, unknown>, symbolType: SymbolTypeCode | undefined): void {
    let text: string | undefined;
    for (const conn of this.#conns.values()) {
      if (conn.account !== accountId || conn.ws.readyState !== WebSocket.OPEN) continue;
      if (symbolType !== undefined && !conn.host.types.includes(symbolType)) continue;
      conn.ws.send((text ??= JSON.stringify(payload)));
    }
    for (const l of this.#userListeners) l(accountId, payload, symbolType);
  }

  readonly #userListeners = new Set<UserEventListener>();

  /** Receives every user data payload with its symbol type (undefined: account-wide); the WebSocket API subscribes here. */
  onUserEvent(listener: UserEventListener): () => void {
    this.#userListeners.add(listener);
    return () => this.#userListeners.delete(listener);
  }

  /** Sends the merged batches of one speed; `suffixes` are its stream spellings after @depth. */
  #flushDepth(fast: boolean, suffixes: readonly string[]): void {
    const now = this.clock.now();
    for (const [symbol, buf] of this.#depth.drain(fast)) {
      const s = this.state.symbols.get(symbol);
      if (!s) continue;
      let payload: Record<string, unknown> | undefined;
      for (const suffix of suffixes) {
        const name = `${this.#streamSym(s)}@depth${suffix}`;
        if (!this.#hasSubscribers(s.info.type, name)) continue;
        payload ??= { e: 'depthUpdate', E: now, s: payloadSymbol(s.info), U: buf.U, u: buf.u, b: [...buf.b], a: [...buf.a] };
        this.#publish(s.info.type, name, payload);
      }
    }
  }

  #partialDepth(fast: boolean): void {
    for (const s of this.state.symbols.values()) {
      for (const levels of [5, 10, 20] as const) {
        const names = fast ? [`${this.#streamSym(s)}@depth${levels}@100ms`] : [`${this.#streamSym(s)}@depth${levels}`, `${this.#streamSym(s)}@depth${levels}@1000ms`];
        for (const name of names) {
          if (!this.#hasSubscribers(s.info.type, name)) continue;
          const book = this.state.engine.depth(s.info.symbol, levels);
          this.#publish(s.info.type, name, { lastUpdateId: book.lastUpdateId, bids: book.bids.map((l) => [l.price.toFixed(), l.qty.toFixed()]), asks: book.asks.map((l) => [l.price.toFixed(), l.qty.toFixed()]) });
        }
      }
    }
  }

  #tickers(): void {
    const now = this.clock.now();
    const changedByType = new Map<SymbolTypeCode, Record<string, unknown>[]>();
    for (const s of this.state.symbols.values()) {
      const changed = this.state.market.takeChanged(s.info.symbol);
      const name = `${this.#streamSym(s)}@miniTicker`;
      const subscribed = this.#hasSubscribers(s.info.type, name);
      if (!changed && !subscribed) continue;
      const t = this.state.market.miniTicker(s.info.symbol, now);
      if (!t) continue;
      const payload = miniTickerPayload(s.info, t, now);
      if (subscribed) this.#publish(s.info.type, name, payload);
      if (changed) {
        const list = changedByType.get(s.info.type) ?? [];
        list.push(payload);
        changedByType.set(s.info.type, list);
      }
    }
    for (const [type, list] of changedByType) this.#publish(type, '!miniTicker@arr', list);
  }

  /** Every 2 s: each kline stream gets the bars closed since its last push, then the open one (kline-pushes.ts). */
  #klines(): void {
    const now = this.clock.now();
    this.state.market.advance(now);
    for (const key of this.#index.keys()) for (const p of this.#klinePushes.due(key, now)) this.#publish(p.type, p.name, p.payload);
  }

  /** The symbol and interval of a kline stream key (`host|name`). */
  #klineOf(key: string): { info: SymbolInfo; interval: KlineIntervalName } | undefined {
    const parsed = parseStreamName(key.slice(key.indexOf('|') + 1));
    const s = parsed?.kind === 'kline' ? this.#symbolFor(parsed, key.slice(0, key.indexOf('|'))) : undefined;
    return parsed?.kind === 'kline' && s ? { info: s.info, interval: parsed.interval } : undefined;
  }

  #symbolFor(parsed: StreamName, hostName: string): SandboxSymbol | undefined {
    if (parsed.kind === 'allMiniTickers') return undefined;
    const host = this.#hosts.find((h) => h.name === hostName);
    return host ? this.state.symbolByStreamName(parsed.symbol, host.types) : undefined;
  }

  #housekeeping(): void {
    const now = this.clock.now();
    for (const conn of this.#conns.values()) {
      if (now - conn.openedAt >= this.timing.connectionLifetimeMs) {
        conn.ws.close(1000, 'connection lifetime reached');
        this.#drop(conn);
        continue;
      }
      if (now - conn.lastPongAt > this.timing.pongTimeoutMs) {
        conn.ws.terminate();
        this.#drop(conn);
        continue;
      }
      if (now - conn.lastPingAt >= this.timing.pingIntervalMs && conn.ws.readyState === WebSocket.OPEN) {
        conn.lastPingAt = now;
        conn.ws.ping();
      }
    }
  }

  #tick(): void {
    if (this.faults.takeCrash()) throw new Error('injected fault: the stream housekeeping tick threw');
    this.#ticks++;
    this.state.flush();
    if (this.#held.length > 0) this.#releaseHeld();
    this.#flushDepth(true, ['@100ms']);
    this.#partialDepth(true);
    if (this.#ticks % 10 === 0) {
      // `<symbol>@depth` is the 1000 ms stream; '@1000ms' is accepted as the explicit spelling.
      this.#flushDepth(false, ['', '@1000ms']);
      this.#partialDepth(false);
      this.#tickers();
    }
    if (this.#ticks % 20 === 0) this.#klines();
    // Hourly: keep 60 days of one-minute bars (enough for every interval the REST API pages through).
    if (this.#ticks % 36_000 === 0) this.state.market.prune(60 * 86_400_000);
    this.#housekeeping();
  }

  /** Closes the connections of listen keys that are no longer open. */
  closeListenKey(key: string): void {
    for (const conn of this.#conns.values()) {
      if (conn.listenKey === key) {
        conn.ws.close(4001, 'listen key expired');
        this.#drop(conn);
      }
    }
  }

  /** Drops every connection, or the one with `id`; returns how many. */
  dropConnections(id?: number): number {
    let n = 0;
    for (const conn of [...this.#conns.values()]) {
      if (id !== undefined && conn.id !== id) continue;
      conn.ws.terminate();
      this.#drop(conn);
      n++;
    }
    return n;
  }

  /** Open connections. */
  connections(): ConnectionInfo[] {
    return [...this.#conns.values()].map((c) => ({ id: c.id, host: c.host.name, combined: c.combined, subscriptions: [...c.subs], ...(c.listenKey !== undefined ? { listenKey: c.listenKey } : {}) }));
  }

  /**
   * Sends the 100 ms diff-depth batches now. A replay calls it after applying recorded diffs: each
   * is already one of the recorded exchange's 100 ms batches, and holding it for the next tick
   * would show the book up to 100 ms of wall time (100 x speed ms of recording) late.
   */
  flushFastDepth(): void {
    this.#flushDepth(true, ['@100ms']);
  }

  /** Runs one housekeeping tick now (tests drive time through an injected clock). */
  tickNow(): void {
    this.#tick();
  }

  /** Stops the timer and closes every connection. */
  async close(): Promise<void> {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
    this.#unsubscribe();
    for (const conn of [...this.#conns.values()]) {
      conn.ws.terminate();
      this.#drop(conn);
    }
    await Promise.all(this.#hosts.map((h) => new Promise<void>((resolve) => h.wss.close(() => resolve()))));
  }
}
