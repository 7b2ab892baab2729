/**
 * A minimal stream host for tests of the stream client: `/stream?streams=` and `/ws/<name>`
 * connections, the control messages, publishing to subscribers, and faults (drop, silence).
 * Listens on 127.0.0.1 with an ephemeral port.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocket, WebSocketServer } from 'ws';

/** One server-side connection. */
export interface FakeConn {
  readonly ws: WebSocket;
  readonly streams: Set<string>;
  combined: boolean;
  readonly path: string;
  readonly openedAt: number;
  readonly received: unknown[];
}

/** The fake host. */
export class FakeStreamServer {
  readonly conns: FakeConn[] = [];
  #http: Server;
  #wss: WebSocketServer;
  /** When false, pings from clients go unanswered (a dead-but-open connection). */
  answerPings = true;
  /** When set, connections older than this are closed by the server (the 24-hour limit, shortened). */
  maxLifetimeMs: number | undefined;
  #lifetimeTimer: ReturnType<typeof setInterval> | undefined;

  private constructor() {
    this.#http = createServer();
    this.#wss = new WebSocketServer({ server: this.#http, autoPong: false });
    this.#wss.on('connection', (ws, req) => this.#onConnection(ws, req.url ?? '/'));
  }

  /** Starts on an ephemeral port. */
  static async start(): Promise<FakeStreamServer> {
    const s = new FakeStreamServer();
    await new Promise<void>((resolve) => s.#http.listen(0, '127.0.0.1', resolve));
    s.#lifetimeTimer = setInterval(() => {
      if (s.maxLifetimeMs === undefined) return;
      for (const c of s.open()) if (Date.now() - c.openedAt > s.maxLifetimeMs) c.ws.close(1000, 'lifetime');
    }, 20);
    return s;
  }

  /** ws://127.0.0.1:port */
  get url(): string {
    return `ws://127.0.0.1:${(this.#http.address() as AddressInfo).port}`;
  }

  /** Currently open connections. */
  open(): FakeConn[] {
    return this.conns.filter((c) => c.ws.readyState === WebSocket.OPEN);
  }

  #onConnection(ws: WebSocket, url: string): void {
    const u = new URL(url, 'http://x');
    const streams = new Set<string>();
    let combined = false;
    if (u.pathname === '/stream') {
      combined = true;
      for (const s of (u.searchParams.get('streams') ?? '').split('/')) if (s) streams.add(s);
    } else if (u.pathname.startsWith('/ws/')) {
      streams.add(decodeURIComponent(u.pathname.slice(4)));
    }
    const conn: FakeConn = { ws, streams, combined, path: url, openedAt: Date.now(), received: [] };
    this.conns.push(conn);
    ws.on('ping', (data) => {
      if (this.answerPings) ws.pong(data);
    });
    ws.on('message', (raw) => this.#onControl(conn, raw.toString()));
  }

  #onControl(conn: FakeConn, text: string): void {
    let req: { method?: unknown; params?: unknown; id?: unknown };
    try {
      req = JSON.parse(text) as typeof req;
    } catch {
      conn.ws.send(JSON.stringify({ code: 3, msg: 'Invalid JSON: expected value at line 1 column 1' }));
      return;
    }
    conn.received.push(req);
    const id = req.id;
    const params = Array.isArray(req.params) ? (req.params as unknown[]) : [];
    const reply = (result: unknown): void => conn.ws.send(JSON.stringify({ result, id }));
    switch (req.method) {
      case 'SUBSCRIBE':
        for (const p of params) conn.streams.add(String(p));
        return reply(null);
      case 'UNSUBSCRIBE':
        for (const p of params) conn.streams.delete(String(p));
        return reply(null);
      case 'LIST_SUBSCRIPTIONS':
        return reply([...conn.streams]);
      case 'SET_PROPERTY':
        if (params[0] !== 'combined') return void conn.ws.send(JSON.stringify({ code: 0, msg: 'Unknown property', id }));
        if (typeof params[1] !== 'boolean') return void conn.ws.send(JSON.stringify({ code: 1, msg: 'Invalid value type: expected Boolean', id }));
        conn.combined = params[1];
        return reply(null);
      case 'GET_PROPERTY':
        if (params[0] !== 'combined') return void conn.ws.send(JSON.stringify({ code: 0, msg: 'Unknown property', id }));
        return reply(conn.combined);
      default:
        conn.ws.send(JSON.stringify({ code: 2, msg: `Invalid request: unknown variant ${String(req.method)}, expected one of SUBSCRIBE, UNSUBSCRIBE, LIST_SUBSCRIPTIONS, SET_PROPERTY, GET_PROPERTY at line 1 column 20`, id }));
    }
  }

  /** Sends a payload to every open connection subscribed to `stream`; returns how many got it. */
  publish(stream: string, data: unknown): number {
    let n = 0;
    for (const c of this.open()) {
      if (!c.streams.has(stream)) continue;
      c.ws.send(JSON.stringify(c.combined ? { stream, data } : data));
      n++;
    }
    return n;
  }

  /** Sends a payload to one connection (by order of arrival), e.g. to give two connections different batches. */
  publishTo(index: number, stream: string, data: unknown): void {
    const c = this.conns[index];
    if (c === undefined || c.ws.readyState !== WebSocket.OPEN) throw new Error(`connection ${index} is not open`);
    c.ws.send(JSON.stringify(c.combined ? { stream, data } : data));
  }

  /** Sends raw text to every open connection. */
  sendRaw(text: string): void {
    for (const c of this.open()) c.ws.send(text);
  }

  /** Drops every connection abruptly. */
  dropAll(): void {
    for (const c of this.open()) c.ws.terminate();
  }

  /** Stops the server and every connection. */
  async stop(): Promise<void> {
    if (this.#lifetimeTimer) clearInterval(this.#lifetimeTimer);
    for (const c of this.conns) c.ws.terminate();
    await new Promise<void>((resolve) => this.#wss.close(() => resolve()));
    await new Promise<void>((resolve) => this.#http.close(() => resolve()));
  }
}

/** Polls `cond` until true (fails after `ms`); avoids fixed sleeps in tests. */
export async function waitFor(cond: () => boolean, ms = 5000, what = 'condition'): Promise<void> {
  const until = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** A trade payload with the given id. */
export function tradePayload(symbol: string, id: number, price = '100.00', qty = '1.0'): Record<string, unknown> {
  return { e: 'trade', E: 1_700_000_000_000 + id, s: symbol, t: id, p: price, q: qty, b: 1, a: 2, T: 1_700_000_000_000 + id, m: true, M: true };
}
