/**
 * The only place that opens HTTP connections for the REST clients: Node's own http(s) client
 * with one keep-alive pool per origin (keepAliveAgent.ts), which writes a request on a free
 * connection in the same turn of the event loop, and one deadline per request that bounds the
 * whole exchange.
 */
import http from 'node:http';
import https from 'node:https';
import type { Socket } from 'node:net';
import { httpRequestFinished, httpRequestMade, httpRequestWritten, type HttpRequestProbe } from '../../core/probes.js';
import { requestWriteAwaited, requestWritten } from '../../core/requestWrites.js';
import { keepAliveAgent } from './keepAliveAgent.js';

/** HTTP methods the two interfaces use. */
export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE';

/** One request as it goes on the wire; `path` already carries the query string. */
export interface HttpRequest {
  readonly method: HttpMethod;
  readonly origin: string;
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: string;
  readonly timeoutMs: number;
}

/** A complete response; header names are lower-case. */
export interface HttpResponse {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

/**
 * Why a request produced no response. The distinction decides whether a non-idempotent call
 * may have taken effect: `connect` failed before a byte was sent (safe), while `timeout` and
 * `io` happened after the request may have reached the server (outcome unknown).
 */
export type TransportFailureKind = 'connect' | 'timeout' | 'io';

/** Result of {@link HttpTransport.send}: a response, or a classified failure (never thrown). */
export type SendResult =
  | { readonly ok: true; readonly response: HttpResponse }
  | { readonly ok: false; readonly kind: TransportFailureKind; readonly detail: string; readonly cause: unknown };

/** Pool settings; defaults suit a trading bot talking to a handful of hosts. */
export interface HttpTransportOptions {
  /** Sockets per origin (default 8). */
  readonly connections?: number;
  /** How long an idle socket stays open (default 30 s). */
  readonly keepAliveTimeoutMs?: number;
  /** Connect timeout (default 5 s). */
  readonly connectTimeoutMs?: number;
}

const CONNECT_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);

/** One origin's pool and how to address it. */
interface Origin {
  readonly agent: http.Agent;
  readonly client: typeof http | typeof https;
  readonly protocol: string;
  readonly hostname: string;
  readonly port: string;
  /** The socket event after which request bytes can leave: TCP connected, or TLS set up. */
  readonly ready: 'connect' | 'secureConnect';
  /** '' over plain HTTP, so the Agent does not work out a TLS server name per request; TLS: its own. */
  readonly servername: '' | undefined;
}

/** Keep-alive HTTP client with one pool per origin. Call {@link close} when done. */
export class HttpTransport {
  readonly #origins = new Map<string, Origin>();
  readonly #options: Required<HttpTransportOptions>;
  #closed = false;
  #active = 0;
  #idle: (() => void) | undefined;
  #closing: Promise<void> | undefined;

  constructor(options: HttpTransportOptions = {}) {
    this.#options = {
      connections: options.connections ?? 8,
      keepAliveTimeoutMs: options.keepAliveTimeoutMs ?? 30_000,
      connectTimeoutMs: options.connectTimeoutMs ?? 5_000,
    };
  }

  /** Sends one request; failures come back classified rather than thrown. */
  send(req: HttpRequest): Promise<SendResult> {
    if (this.#closed) return Promise.resolve({ ok: false, kind: 'connect', detail: 'transport closed', cause: undefined });
    this.#active++;
    return new Promise<SendResult>((resolve) => {
      this.#start(req, (result) => {
        if (--this.#active === 0) this.#idle?.();
        resolve(result);
      });
    });
  }

  /** Waits for requests in flight, then closes every connection; idempotent (every call gets the one closing). */
  close(): Promise<void> {
    return (this.#closing ??= this.#close());
  }

  async #close(): Promise<void> {
    this.#closed = true;
    if (this.#active > 0) await new Promise<void>((resolve) => (this.#idle = resolve));
    for (const o of this.#origins.values()) o.agent.destroy();
    this.#origins.clear();
  }

  #start(req: HttpRequest, done: (result: SendResult) => void): void {
    if (httpRequestMade.hasSubscribers) httpRequestMade.publish({ at: performance.now(), body: req.body } satisfies HttpRequestProbe);
    const o = this.#origin(req.origin);
    const x = new Exchange(req, o, this.#options.connectTimeoutMs, done);
    let r: http.ClientRequest;
    try {
      r = o.client.request(
        { agent: o.agent, protocol: o.protocol, hostname: o.hostname, port: o.port, servername: o.servername, method: req.method, path: req.path, headers: req.headers },
        onResponse,
      );
    } catch (cause) {
      // Refused while building the request (a header it cannot carry): nothing was sent.
      x.finish({ ok: false, ...classify(cause), kind: 'connect', cause });
      return;
    }
    x.r = r;
    (r as Carrier)[EXCHANGE] = x;
    r.on('socket', onSocket);
    r.on('error', onRequestError);
    // 'prefinish' is emitted as the socket write of the request's last bytes returns (Node's
    // OutgoingMessage._finish); 'finish' waits for the write's callback, queued behind others.
    // Both decided now: a callback registered after this request was made waits for the next one.
    x.publishWritten = httpRequestWritten.hasSubscribers;
    x.signalWritten = requestWriteAwaited();
    if (x.publishWritten || x.signalWritten) r.once('prefinish', onPrefinish);
    if (httpRequestFinished.hasSubscribers) r.once('finish', onFinish);
    r.end(req.body);
  }

  #origin(origin: string): Origin {
    let o = this.#origins.get(origin);
    if (!o) {
      const url = new URL(origin);
      const secure = url.protocol === 'https:';
      o = {
        agent: keepAliveAgent(url.protocol, { connections: this.#options.connections, keepAliveTimeoutMs: this.#options.keepAliveTimeoutMs }),
        client: secure ? https : http,
        protocol: url.protocol,
        // An IPv6 literal comes bracketed in a URL, bare in a connect address.
        hostname: url.hostname.replace(/^\[(.*)\]$/, '$1'),
        port: url.port,
        ready: secure ? 'secureConnect' : 'connect',
        servername: secure ? undefined : '',
      };
      this.#origins.set(origin, o);
    }
    return o;
  }
}

/** Where a request and its response carry their {@link Exchange}, for its listeners to find. */
const EXCHANGE = Symbol('exchange');
type Carrier = (http.ClientRequest | http.IncomingMessage) & { [EXCHANGE]?: Exchange };

/**
 * One request's state. Its listeners are module functions that find it on the request or the
 * response (`this` of their events), not closures made per request.
 */
class Exchange {
  /** Until the connection is ready no byte of the request has left: a failure then is a `connect` one (safe to repeat, even for an order); after it the outcome is unknown. */
  connected = false;
  settled = false;
  r: http.ClientRequest | undefined;
  connectTimer: NodeJS.Timeout | undefined;
  readonly deadline: NodeJS.Timeout;
  /** The response body's first chunk, and all of them once there is a second. */
  first: Buffer | undefined;
  chunks: Buffer[] | undefined;
  /** At the write: publish `kancil:http:written`; run the callbacks waiting for a write (requestWrites.ts). */
  publishWritten = false;
  signalWritten = false;

  constructor(
    readonly req: HttpRequest,
    readonly origin: Origin,
    readonly connectTimeoutMs: number,
    readonly done: (result: SendResult) => void,
  ) {
    this.deadline = setTimeout(onDeadline, req.timeoutMs, this);
  }

  finish(result: SendResult): void {
    if (this.settled) return;
    this.settled = true;
    clearTimeout(this.deadline);
    clearTimeout(this.connectTimer);
    if (!result.ok) this.r?.destroy();
    this.done(result);
  }

  /** The response body as text (decoded once, whole, so a character split across chunks is kept). */
  body(): string {
    if (this.chunks !== undefined) return Buffer.concat(this.chunks).toString('utf8');
    return this.first === undefined ? '' : this.first.toString('utf8');
  }
}

function exchangeOf(m: http.ClientRequest | http.IncomingMessage): Exchange {
  return (m as Carrier)[EXCHANGE] as Exchange;
}

function onDeadline(x: Exchange): void {
  const detail = `no complete response within ${x.req.timeoutMs} ms`;
  x.finish({ ok: false, kind: x.connected ? 'timeout' : 'connect', detail: x.connected ? detail : `${detail} (no connection was ready)`, cause: undefined });
}

function onConnectTimeout(x: Exchange): void {
  x.finish({ ok: false, kind: 'connect', detail: `no connection within ${x.connectTimeoutMs} ms`, cause: undefined });
}

function onSocket(this: http.ClientRequest, socket: Socket): void {
  const x = exchangeOf(this);
  if (!socket.connecting) {
    x.connected = true;
    return;
  }
  socket.once(x.origin.ready, () => {
    x.connected = true;
    clearTimeout(x.connectTimer);
  });
  x.connectTimer = setTimeout(onConnectTimeout, x.connectTimeoutMs, x);
}

function onRequestError(this: http.ClientRequest, cause: Error): void {
  const x = exchangeOf(this);
  x.finish({ ok: false, ...(x.connected ? classify(cause) : { kind: 'connect' as const, detail: classify(cause).detail }), cause });
}

function onPrefinish(this: http.ClientRequest): void {
  const x = exchangeOf(this);
  if (x.publishWritten) httpRequestWritten.publish({ at: performance.now(), body: x.req.body } satisfies HttpRequestProbe);
  if (x.signalWritten) requestWritten();
}

function onFinish(this: http.ClientRequest): void {
  httpRequestFinished.publish({ at: performance.now(), body: exchangeOf(this).req.body } satisfies HttpRequestProbe);
}

/** Reads a whole response; a connection lost before its end is an `io` failure. */
function onResponse(this: http.ClientRequest, res: http.IncomingMessage): void {
  (res as Carrier)[EXCHANGE] = exchangeOf(this);
  res.on('data', onData);
  res.on('end', onEnd);
  res.on('error', onResponseError);
  res.on('close', onClose);
}

function onData(this: http.IncomingMessage, chunk: Buffer): void {
  const x = exchangeOf(this);
  if (x.first === undefined) x.first = chunk;
  else (x.chunks ??= [x.first]).push(chunk);
}

function onEnd(this: http.IncomingMessage): void {
  const x = exchangeOf(this);
  x.finish({ ok: true, response: { status: this.statusCode ?? 0, headers: textHeaders(this.headers), body: x.body() } });
}

/**
 * The headers with one text each. Node keeps one text for a repeated header (joined, or the first
 * where only one is allowed), except set-cookie, which it keeps as a list: only then is a copy
 * made (the list joined), else Node's object is handed on as it is (nothing changes it; the
 * Agent reads its Keep-Alive hint there too).
 */
function textHeaders(h: http.IncomingHttpHeaders): Record<string, string> {
  if (h['set-cookie'] === undefined) return h as Record<string, string>;
  const headers: Record<string, string> = {};
  for (const k of Object.keys(h)) {
    const v = h[k];
    if (v !== undefined) headers[k] = Array.isArray(v) ? v.join(', ') : v;
  }
  return headers;
}

function onResponseError(this: http.IncomingMessage, cause: Error): void {
  exchangeOf(this).finish({ ok: false, ...classify(cause), cause });
}

function onClose(this: http.IncomingMessage): void {
  if (!this.complete) exchangeOf(this).finish({ ok: false, kind: 'io', detail: 'connection closed before the response was complete', cause: undefined });
}

function classify(cause: unknown): { kind: TransportFailureKind; detail: string } {
  const code = typeof cause === 'object' && cause !== null && 'code' in cause ? String((cause as { code: unknown }).code) : '';
  const message = cause instanceof Error ? cause.message : String(cause);
  if (CONNECT_CODES.has(code)) return { kind: 'connect', detail: `${code} ${message}`.trim() };
  return { kind: 'io', detail: code ? `${code} ${message}` : message };
}
