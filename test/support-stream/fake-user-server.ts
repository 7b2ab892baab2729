/**
 * A minimal user-data host for tests: listen keys with expiry (`/ws/<listenKey>`) and the
 * WebSocket API (`/ws-api/v3`) with listen-token subscriptions, plus fake REST key/token APIs.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocket, WebSocketServer } from 'ws';
import type { ListenKeyApi, ListenTokenApi } from '../../src/exchange/stream/apis.js';

interface TokenSub {
  readonly ws: WebSocket;
  readonly id: number;
  readonly token: string;
}

/** The fake host and its REST fakes. */
export class FakeUserServer {
  readonly keys = new Map<string, { valid: boolean; kind: 1 | 3 }>();
  readonly tokens = new Map<string, { expirationTime: number; valid: boolean }>();
  readonly keyConns: { ws: WebSocket; key: string }[] = [];
  readonly subs: TokenSub[] = [];
  readonly calls: string[] = [];
  readonly unsubscribed: (number | 'all')[] = [];
  #nextKey = 1;
  #nextSub = 1;
  #nextToken = 1;
  #http: Server;
  #wss: WebSocketServer;

  private constructor() {
    this.#http = createServer();
    this.#wss = new WebSocketServer({ noServer: true });
    this.#http.on('upgrade', (req, socket, head) => {
      const path = req.url ?? '';
      if (path.startsWith('/ws/')) {
        const key = path.slice(4);
        if (!this.keys.get(key)?.valid) {
          socket.end('HTTP/1.1 401 Unauthorized\r\n\r\n');
          return;
        }
        this.#wss.handleUpgrade(req, socket, head, (ws) => this.keyConns.push({ ws, key }));
      } else if (path === '/ws-api/v3') {
        this.#wss.handleUpgrade(req, socket, head, (ws) => ws.on('message', (raw) => this.#onApi(ws, raw.toString())));
      } else {
        socket.end('HTTP/1.1 404 Not Found\r\n\r\n');
      }
    });
  }

  /** Starts on an ephemeral port. */
  static async start(): Promise<FakeUserServer> {
    const s = new FakeUserServer();
    await new Promise<void>((resolve) => s.#http.listen(0, '127.0.0.1', resolve));
    return s;
  }

  /** ws://127.0.0.1:port */
  get url(): string {
    return `ws://127.0.0.1:${(this.#http.address() as AddressInfo).port}`;
  }

  /** REST listen-key fake. */
  readonly keyApi: ListenKeyApi = {
    createListenKey: async (t) => {
      this.calls.push(`create:${t}`);
      const key = `key${this.#nextKey++}`;
      this.keys.set(key, { valid: true, kind: t });
      return key;
    },
    keepAliveListenKey: async (t, key) => {
      this.calls.push(`keepalive:${key}`);
      if (!this.keys.get(key)?.valid) throw new Error('HTTP 401: listen key does not exist');
    },
    closeListenKey: async (t, key) => {
      this.calls.push(`close:${key}`);
      this.keys.delete(key);
    },
  };

  /** REST listen-token fake. */
  readonly tokenApi: ListenTokenApi = {
    createListenToken: async (validityMs) => {
      const token = `tok${this.#nextToken++}`;
      const expirationTime = Date.now() + (validityMs ?? 86_400_000);
      this.tokens.set(token, { expirationTime, valid: true });
      this.calls.push(`token:${token}`);
      return { token, expirationTime };
    },
  };

  /** Expires a listen key and closes its connections, like the 60-minute expiry. */
  expireKey(key: string): void {
    const k = this.keys.get(key);
    if (k) k.valid = false;
    for (const c of this.keyConns) if (c.key === key) c.ws.close(1000, 'listen key expired');
  }

  /** Expires a token early and pushes eventStreamTerminated to its subscriptions. */
  expireToken(token: string): void {
    const t = this.tokens.get(token);
    if (t) t.valid = false;
    for (const s of this.subs.splice(0).filter((x) => { if (x.token === token) return true; this.subs.push(x); return false; })) {
      s.ws.send(JSON.stringify({ subscriptionId: s.id, event: { e: 'eventStreamTerminated', E: Date.now() } }));
    }
  }

  /** Pushes a user event to every valid listen-key connection and every token subscription. */
  push(event: Record<string, unknown>): void {
    for (const c of this.keyConns) if (c.ws.readyState === WebSocket.OPEN && this.keys.get(c.key)?.valid) c.ws.send(JSON.stringify(event));
    for (const s of this.subs) if (s.ws.readyState === WebSocket.OPEN) s.ws.send(JSON.stringify({ subscriptionId: s.id, event }));
  }

  /** Sends raw text (e.g. not JSON) to every valid listen-key connection and every token subscriber's socket. */
  pushText(text: string): void {
    for (const c of this.keyConns) if (c.ws.readyState === WebSocket.OPEN && this.keys.get(c.key)?.valid) c.ws.send(text);
    for (const s of this.subs) if (s.ws.readyState === WebSocket.OPEN) s.ws.send(text);
  }

  /** Drops every connection. */
  dropAll(): void {
    for (const c of this.keyConns) c.ws.terminate();
    for (const s of this.subs.splice(0)) s.ws.terminate();
  }

  #onApi(ws: WebSocket, text: string): void {
    const req = JSON.parse(text) as { id: string; method: string; params?: Record<string, unknown> };
    this.calls.push(req.method);
    if (req.method === 'userDataStream.subscribe.listenToken') {
      const token = String(req.params?.listenToken);
      const t = this.tokens.get(token);
      if (!t?.valid || t.expirationTime <= Date.now()) {
        ws.send(JSON.stringify({ id: req.id, status: 400, error: { code: -1209, msg: 'Invalid listenToken.' } }));
        return;
      }
      const id = this.#nextSub++;
      this.subs.push({ ws, id, token });
      ws.send(JSON.stringify({ id: req.id, status: 200, result: { subscriptionId: id, expirationTime: t.expirationTime } }));
    } else if (req.method === 'userDataStream.unsubscribe') {
      const sid = req.params?.subscriptionId;
      this.unsubscribed.push(typeof sid === 'number' ? sid : 'all');
      for (let i = this.subs.length - 1; i >= 0; i--) {
        const s = this.subs[i] as TokenSub;
        if (s.ws === ws && (typeof sid !== 'number' || s.id === sid)) this.subs.splice(i, 1);
      }
      ws.send(JSON.stringify({ id: req.id, status: 200, result: null }));
    }
  }

  /** Stops everything. */
  async stop(): Promise<void> {
    for (const c of this.keyConns) c.ws.terminate();
    for (const s of this.subs) s.ws.terminate();
    for (const c of this.#wss.clients) c.terminate();
    await new Promise<void>((resolve) => this.#wss.close(() => resolve()));
    await new Promise<void>((resolve) => this.#http.close(() => resolve()));
  }
}

/** An executionReport payload with every field of the spec. */
export function executionReport(E: number, over: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    e: 'executionReport', E, s: 'BTCIDR', c: 'cid-1', S: 'BUY', o: 'LIMIT', f: 'GTC', q: '0.00100000', p: '1421496253.00', P: '0.00', F: '0.00000000', g: -1, C: '',
    x: 'TRADE', X: 'PARTIALLY_FILLED', r: 'NONE', i: 4242, l: '0.00040000', z: '0.00060000', L: '1421496253.00', n: '0.56859850', N: 'IDR', T: E, t: 77, I: 1, w: false, m: true, M: true,
    O: E - 10, Z: '852897.75', Y: '568598.50', ...over,
  };
}
