/**
 * The WebSocket API at {ws_api_url} (path /ws-api/v3): userDataStream.subscribe.listenToken
 * and userDataStream.unsubscribe, pushing user data events as {subscriptionId, event} and
 * eventStreamTerminated when a token's subscription expires without renewal.
 *
 * Reply shape (the spec gives only results): {"id", "status", "result"} on success and
 * {"id", "status", "error": {"code", "msg"}} on failure, with a rateLimits array carrying the
 * request weight, as the exchange's WebSocket API family does.
 *
 * Hostile input: a frame over MAX_INBOUND_FRAME_BYTES closes with 1009 before it is buffered; JSON
 * nested deeper than serde's limit answers -1100 like any malformed request (JSON.parse would take
 * it, but echoing such a value back would overflow the stack).
 */
import type http from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocket, WebSocketServer } from 'ws';
import type { Clock } from '../core/index.js';
import { SandboxFailures } from './failures.js';
import { scanJson } from './json-syntax.js';
import type { StreamServer, StreamTiming } from './stream-server.js';
import type { UserStreamRegistry } from './user-streams.js';
import { MAX_INBOUND_FRAME_BYTES, frameText } from './ws-control.js';

interface Subscription {
  readonly id: number;
  readonly token: string;
  readonly account: string;
}

interface Session {
  readonly ws: WebSocket;
  readonly subs: Map<number, Subscription>;
  readonly openedAt: number;
  lastPingAt: number;
  lastPongAt: number;
}

/** The WebSocket API server. */
export class WsApiServer {
  readonly #wss = new WebSocketServer({ noServer: true, maxPayload: MAX_INBOUND_FRAME_BYTES });
  readonly #sessions = new Set<Session>();
  #nextSubscriptionId = 0;
  readonly #unsubscribe: () => void;
  #timer: NodeJS.Timeout | undefined;

  constructor(
    readonly registry: UserStreamRegistry,
    streams: StreamServer,
    readonly clock: Clock,
    readonly timing: StreamTiming,
    readonly maxSubscriptions: number,
    readonly failures = new SandboxFailures(),
  ) {
    // The WebSocket API serves symbol type 1 only: order updates of other types are not its to send.
    this.#unsubscribe = streams.onUserEvent((account, payload, symbolType) => {
      if (symbolType === undefined || symbolType === 1) this.#push(account, payload);
    });
    this.#timer = setInterval(failures.guard('WebSocket API housekeeping', () => this.#housekeeping()), 100);
  }

  /** Serves /ws-api/v3 on `server`. */
  attach(server: http.Server): void {
    server.on('upgrade', (req: http.IncomingMessage, socket: Duplex, head: Buffer) => {
      const path = (req.url ?? '/').split('?')[0];
      if (path !== '/ws-api/v3') {
        socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\n\r\n');
        return;
      }
      this.#wss.handleUpgrade(req, socket, head, (ws) => {
        const now = this.clock.now();
        const session: Session = { ws, subs: new Map(), openedAt: now, lastPingAt: now, lastPongAt: now };
        this.#sessions.add(session);
        ws.on('pong', () => {
          session.lastPongAt = this.clock.now();
        });
        ws.on(
          'message',
          this.failures.guard('WebSocket API request', (data: Buffer | ArrayBuffer | Buffer[]) => this.#request(session, frameText(data))),
        );
        ws.on('close', () => this.#sessions.delete(session));
        ws.on('error', () => this.#sessions.delete(session));
      });
    });
  }

  #reply(session: Session, id: unknown, status: number, body: { result: unknown } | { error: { code: number; msg: string } }, weight: number): void {
    if (session.ws.readyState !== WebSocket.OPEN) return;
    session.ws.send(JSON.stringify({ id: id ?? null, status, ...body, rateLimits: [{ rateLimitType: 'REQUEST_WEIGHT', interval: 'MINUTE', intervalNum: 1, limit: 6000, count: weight }] }));
  }

  #request(session: Session, text: string): void {
    const scanned = scanJson(text);
    if ('error' in scanned) {
      const e = scanned.error;
      this.#reply(session, null, 400, { error: { code: -1100, msg: `Malformed request: the message is not valid JSON (${e.message} at line ${e.line} column ${e.column}).` } }, 0);
      return;
    }
    const req: unknown = JSON.parse(text);
    if (typeof req !== 'object' || req === null || Array.isArray(req)) {
      this.#reply(session, null, 400, { error: { code: -1100, msg: 'Malformed request: expected a JSON object.' } }, 0);
      return;
    }
    const r = req as Record<string, unknown>;
    const id = r.id;
    if (typeof id !== 'string' && typeof id !== 'number') {
      this.#reply(session, null, 400, { error: { code: -1102, msg: "Mandatory parameter 'id' was not sent, was empty/null, or malformed." } }, 0);
      return;
    }
    const params = (typeof r.params === 'object' && r.params !== null ? r.params : {}) as Record<string, unknown>;
    switch (r.method) {
      case 'userDataStream.subscribe.listenToken': {
        const token = params.listenToken;
        if (typeof token !== 'string' || token === '') {
          this.#reply(session, id, 400, { error: { code: -1102, msg: "Mandatory parameter 'listenToken' was not sent, was empty/null, or malformed." } }, 2);
          return;
        }
        const info = this.registry.tokenInfo(token);
        if (!info) {
          this.#reply(session, id, 400, { error: { code: -1125, msg: 'Invalid listen token.' } }, 2);
          return;
        }
        if (session.subs.size >= this.maxSubscriptions) {
          this.#reply(session, id, 400, { error: { code: -1015, msg: `Too many subscriptions; at most ${this.maxSubscriptions} per session.` } }, 2);
          return;
        }
        const sub: Subscription = { id: this.#nextSubscriptionId++, token, account: info.account };
        session.subs.set(sub.id, sub);
        this.#reply(session, id, 200, { result: { subscriptionId: sub.id, expirationTime: info.expirationTime } }, 2);
        return;
      }
      case 'userDataStream.unsubscribe': {
        const sid = params.subscriptionId;
        if (sid === undefined) session.subs.clear();
        else if (typeof sid !== 'number' || !session.subs.delete(sid)) {
          this.#reply(session, id, 400, { error: { code: -1130, msg: `Invalid subscriptionId ${JSON.stringify(sid)}.` } }, 2);
          return;
        }
        this.#reply(session, id, 200, { result: null }, 2);
        return;
      }
      default:
        this.#reply(session, id, 400, { error: { code: -1100, msg: `Unknown method ${JSON.stringify(r.method)}.` } }, 1);
    }
  }

  #push(account: string, payload: Record<string, unknown>): void {
    for (const s of this.#sessions) {
      for (const sub of s.subs.values()) {
        if (sub.account === account && s.ws.readyState === WebSocket.OPEN) s.ws.send(JSON.stringify({ subscriptionId: sub.id, event: payload }));
      }
    }
  }

  /** Ends the subscriptions of tokens that expired, pushing eventStreamTerminated for each. */
  terminateTokens(tokens: readonly string[]): void {
    if (tokens.length === 0) return;
    const dead = new Set(tokens);
    const now = this.clock.now();
    for (const s of this.#sessions) {
      for (const sub of [...s.subs.values()]) {
        if (!dead.has(sub.token)) continue;
        s.subs.delete(sub.id);
        if (s.ws.readyState === WebSocket.OPEN) s.ws.send(JSON.stringify({ subscriptionId: sub.id, event: { e: 'eventStreamTerminated', E: now } }));
      }
    }
  }

  /** Tokens with live subscriptions whose expirationTime has passed are found by the registry sweep; this keeps pings and lifetime. */
  #housekeeping(): void {
    const now = this.clock.now();
    for (const s of this.#sessions) {
      if (now - s.openedAt >= this.timing.connectionLifetimeMs) {
        s.ws.close(1000, 'connection lifetime reached');
        this.#sessions.delete(s);
      } else if (now - s.lastPongAt > this.timing.pongTimeoutMs) {
        s.ws.terminate();
        this.#sessions.delete(s);
      } else if (now - s.lastPingAt >= this.timing.pingIntervalMs && s.ws.readyState === WebSocket.OPEN) {
        s.lastPingAt = now;
        s.ws.ping();
      }
    }
  }

  /** Drops every session (fault injection); returns how many. */
  dropAll(): number {
    const n = this.#sessions.size;
    for (const s of this.#sessions) s.ws.terminate();
    this.#sessions.clear();
    return n;
  }

  /** Stops the timer and closes every session. */
  async close(): Promise<void> {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
    this.#unsubscribe();
    this.dropAll();
    await new Promise<void>((resolve) => this.#wss.close(() => resolve()));
  }
}
