/**
 * The only place that opens HTTP connections for the REST clients: Node's own http(s) client
 * with one keep-alive pool per origin (keepAliveAgent.ts), which writes a request on a free
 * connection in the same turn of the event loop, and one deadline per request that bounds the
 * whole exchange.
 */
import http from 'node:http';
import https from 'node:https';
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
    // Until the connection is ready no byte of the request has left: a failure then is a
    // `connect` one (safe to repeat, even for an order); after it the outcome is unknown.
    let connected = false;
    let settled = false;
    let connectTimer: NodeJS.Timeout | undefined;
    let r: http.ClientRequest | undefined;
    const finish = (result: SendResult): void => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      clearTimeout(connectTimer);
      if (!result.ok) r?.destroy();
      done(result);
    };
    const deadline = setTimeout(() => {
      const detail = `no complete response within ${req.timeoutMs} ms`;
      finish({ ok: false, kind: connected ? 'timeout' : 'connect', detail: connected ? detail : `${detail} (no connection was ready)`, cause: undefined });
    }, req.timeoutMs);
    try {
      r = o.client.request(
        { agent: o.agent, protocol: o.protocol, hostname: o.hostname, port: o.port, method: req.method, path: req.path, headers: req.headers },
        (res) => readResponse(res, finish),
      );
    } catch (cause) {
      // Refused while building the request (a header it cannot carry): nothing was sent.
      finish({ ok: false, ...classify(cause), kind: 'connect', cause });
      return;
    }
    r.on('socket', (socket) => {
      if (!socket.connecting) {
        connected = true;
        return;
      }
      socket.once(o.ready, () => {
        connected = true;
        clearTimeout(connectTimer);
      });
      connectTimer = setTimeout(() => finish({ ok: false, kind: 'connect', detail: `no connection within ${this.#options.connectTimeoutMs} ms`, cause: undefined }), this.#options.connectTimeoutMs);
    });
    r.on('error', (cause) => finish({ ok: false, ...(connected ? classify(cause) : { kind: 'connect' as const, detail: classify(cause).detail }), cause }));
    // 'prefinish' is emitted as the socket write of the request's last bytes returns (Node's
    // OutgoingMessage._finish); 'finish' waits for the write's callback, queued behind others.
    if (httpRequestWritten.hasSubscribers) r.once('prefinish', () => httpRequestWritten.publish({ at: performance.now(), body: req.body } satisfies HttpRequestProbe));
    if (requestWriteAwaited()) r.once('prefinish', requestWritten);
    if (httpRequestFinished.hasSubscribers) r.once('finish', () => httpRequestFinished.publish({ at: performance.now(), body: req.body } satisfies HttpRequestProbe));
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
      };
      this.#origins.set(origin, o);
    }
    return o;
  }
}

/** Reads a whole response as text; a connection lost before its end is an `io` failure. */
function readResponse(res: http.IncomingMessage, finish: (result: SendResult) => void): void {
  res.setEncoding('utf8');
  let body = '';
  res.on('data', (chunk: string) => {
    body += chunk;
  });
  res.on('end', () => {
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(res.headers)) {
      if (v !== undefined) headers[k] = Array.isArray(v) ? v.join(', ') : v;
    }
    finish({ ok: true, response: { status: res.statusCode ?? 0, headers, body } });
  });
  res.on('error', (cause) => finish({ ok: false, ...classify(cause), cause }));
  res.on('close', () => {
    if (!res.complete) finish({ ok: false, kind: 'io', detail: 'connection closed before the response was complete', cause: undefined });
  });
}

function classify(cause: unknown): { kind: TransportFailureKind; detail: string } {
  const code = typeof cause === 'object' && cause !== null && 'code' in cause ? String((cause as { code: unknown }).code) : '';
  const message = cause instanceof Error ? cause.message : String(cause);
  if (CONNECT_CODES.has(code)) return { kind: 'connect', detail: `${code} ${message}`.trim() };
  return { kind: 'io', detail: code ? `${code} ${message}` : message };
}
