/**
 * One HTTP "host" of the sandbox: a node:http server on 127.0.0.1 with a route table.
 * Hosts share the dispatch rules: fault checks, then the route's own handling, then one JSON
 * reply. Sockets are tracked so stop() leaves nothing open (blackholed requests included).
 */
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { ExchangeError, NetworkError } from '../core/index.js';

/** A parsed incoming request. */
export interface RequestContext {
  readonly method: string;
  readonly path: string;
  /** Query string exactly as sent, without '?'. */
  readonly rawQuery: string;
  /** Body exactly as sent. */
  readonly rawBody: string;
  /** Query parameters, then body parameters except on GET (body wins, as the spec says). */
  readonly params: ReadonlyMap<string, string>;
  readonly headers: http.IncomingHttpHeaders;
  readonly ip: string;
}

/** A reply: status, JSON body (or a pre-serialised string) and extra headers. */
export interface Reply {
  readonly status: number;
  readonly body: unknown;
  readonly headers?: Readonly<Record<string, string>>;
}

/** Thrown by a handler to destroy the request's connection without any answer (a fault). */
export class DropConnection extends Error {
  constructor() {
    super('connection dropped by a sandbox fault');
    this.name = 'DropConnection';
  }
}

/** Request handler of a host. Throwing ExchangeError answers its status and message through `renderError`. */
export type HostHandler = (ctx: RequestContext) => Reply | Promise<Reply>;

/** A running host. */
export interface Host {
  readonly name: string;
  readonly server: http.Server;
  readonly port: number;
  /** Closes the listener and destroys every open socket. */
  close(): Promise<void>;
}

/** Parses `a=1&b=2` keeping the last value of a repeated key. */
export function parseParams(raw: string, into: Map<string, string>): void {
  if (raw === '') return;
  for (const [k, v] of new URLSearchParams(raw)) into.set(k, v);
}

function readBody(req: http.IncomingMessage, limit: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > limit) {
        reject(new ExchangeError(413, -1100, 'request body too large', req.url ?? ''));
        req.destroy();
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

/** Writes a JSON reply. */
export function sendReply(res: http.ServerResponse, reply: Reply): void {
  if (res.writableEnded || res.destroyed) return;
  const text = typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body);
  res.writeHead(reply.status, { 'Content-Type': 'application/json;charset=UTF-8', 'Content-Length': Buffer.byteLength(text), ...(reply.headers ?? {}) });
  res.end(text);
}

/**
 * Why host `name` could not listen, naming the address and the sandbox setting to change (a port
 * in use is an operator's problem to fix, not a crash with a stack).
 */
export function listenError(err: Error, name: string, bind: { host: string; port: number }): NetworkError {
  const code = (err as NodeJS.ErrnoException).code;
  const fix = code === 'EADDRNOTAVAIL' ? 'set server.host to an address of this machine' : `set server.ports.${name} in the sandbox config to a free port (0 = any)`;
  return new NetworkError(`${bind.host}:${bind.port}`, `the sandbox's ${name} port cannot listen (${code ?? err.message}): ${fix}`, { cause: err });
}

/** Starts a host listening on `host:port` (0 for an ephemeral port). */
export async function startHost(
  name: string,
  bind: { host: string; port: number },
  handler: HostHandler,
  renderError: (e: ExchangeError, ctx: RequestContext | undefined, ip: string) => Reply,
): Promise<Host> {
  const sockets = new Set<Socket>();
  const server = http.createServer({ keepAliveTimeout: 65_000 }, (req, res) => {
    void (async () => {
      let ctx: RequestContext | undefined;
      try {
        const url = req.url ?? '/';
        const q = url.indexOf('?');
        const path = q < 0 ? url : url.slice(0, q);
        const rawQuery = q < 0 ? '' : url.slice(q + 1);
        const rawBody = await readBody(req, 1 << 20);
        const params = new Map<string, string>();
        parseParams(rawQuery, params);
        // "GET parameters are sent in the query string": a GET body is not read for parameters, so a
        // client that puts them there is refused here as it would be live.
        if (rawBody !== '' && req.method !== 'GET' && !(req.headers['content-type'] ?? '').includes('json')) parseParams(rawBody, params);
        let decoded: string;
        try {
          decoded = decodeURI(path);
        } catch {
          throw new ExchangeError(400, -1100, `malformed path ${JSON.stringify(path)}`, path);
        }
        ctx = { method: req.method ?? 'GET', path: decoded, rawQuery, rawBody, params, headers: req.headers, ip: req.socket.remoteAddress ?? '' };
        const reply = await handler(ctx);
        sendReply(res, reply);
      } catch (e) {
        if (e instanceof DropConnection) {
          req.socket.destroy();
          return;
        }
        const ip = req.socket.remoteAddress ?? '';
        if (e instanceof ExchangeError) sendReply(res, renderError(e, ctx, ip));
        else sendReply(res, renderError(new ExchangeError(500, -1000, `internal error: ${e instanceof Error ? e.message : String(e)}`, req.url ?? ''), ctx, ip));
      }
    })();
  });
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (err) => reject(listenError(err, name, bind)));
    server.listen(bind.port, bind.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  return {
    name,
    server,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const s of sockets) s.destroy();
        server.closeAllConnections();
      }),
  };
}
