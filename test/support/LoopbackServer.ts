/**
 * A small HTTP server on 127.0.0.1 (ephemeral port) for client tests: register replies per
 * `METHOD /path`, then inspect every request exactly as it arrived (raw query and body, so
 * signatures can be recomputed independently). Unrouted requests get 404 and are recorded too.
 */
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request as the server saw it. */
export interface RecordedRequest {
  readonly method: string;
  /** Path without the query string. */
  readonly path: string;
  /** Query string as sent, without `?`. */
  readonly rawQuery: string;
  /** Body as sent. */
  readonly rawBody: string;
  readonly headers: IncomingHttpHeaders;
  /** Query parameters (decoded; the last of repeated names wins). */
  readonly query: Readonly<Record<string, string>>;
  /** Form body parameters when the body is form-encoded, else {}. */
  readonly form: Readonly<Record<string, string>>;
  /** Query then form parameters merged (the body wins, as the spec says). */
  readonly params: Readonly<Record<string, string>>;
  /** A header value as a single string. */
  header(name: string): string | undefined;
}

/** What a route answers. `hang` never answers (until the server closes), to provoke timeouts. */
export interface Reply {
  readonly status?: number;
  readonly headers?: Readonly<Record<string, string>>;
  /** Serialised with JSON.stringify. */
  readonly json?: unknown;
  /** Sent verbatim (for malformed bodies). */
  readonly text?: string;
  readonly hang?: boolean;
  /** Destroys the connection after the request arrived, without a response (a reset mid-call). */
  readonly reset?: boolean;
}

/** A route: a fixed reply or a function of the request. */
export type Route = Reply | ((req: RecordedRequest) => Reply | Promise<Reply>);

function parseParams(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of new URLSearchParams(text)) out[k] = v;
  return out;
}

/** The loopback server. Always `await server.close()` in afterEach/afterAll. */
export class LoopbackServer {
  readonly requests: RecordedRequest[] = [];
  readonly #routes = new Map<string, Route>();
  readonly #hanging = new Set<ServerResponse>();

  private constructor(
    private readonly server: Server,
    /** `http://127.0.0.1:<port>` */
    readonly url: string,
  ) {}

  /** Starts a server on 127.0.0.1 with an ephemeral port. */
  static async start(): Promise<LoopbackServer> {
    // The request handler needs the instance, which needs the listening server: a holder breaks the cycle.
    const holder: { self?: LoopbackServer } = {};
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        void holder.self?.handle(req.method ?? '', req.url ?? '/', req.headers, Buffer.concat(chunks).toString('utf8'), res);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const self = new LoopbackServer(server, `http://127.0.0.1:${port}`);
    holder.self = self;
    return self;
  }

  /** Registers the reply for `METHOD /path` (replacing an earlier one). */
  on(method: string, path: string, route: Route): this {
    this.#routes.set(`${method} ${path}`, route);
    return this;
  }

  /** Requests received for `METHOD /path`. */
  received(method: string, path: string): RecordedRequest[] {
    return this.requests.filter((r) => r.method === method && r.path === path);
  }

  /** The only request for `METHOD /path`; throws unless exactly one arrived. */
  only(method: string, path: string): RecordedRequest {
    const got = this.received(method, path);
    if (got.length !== 1) throw new Error(`expected exactly one ${method} ${path}, got ${got.length} (all: ${this.requests.map((r) => `${r.method} ${r.path}`).join(', ')})`);
    return got[0] as RecordedRequest;
  }

  /** Stops listening, ends hanging replies and drops keep-alive sockets. */
  async close(): Promise<void> {
    for (const res of this.#hanging) res.destroy();
    this.#hanging.clear();
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    this.server.closeAllConnections();
    await closed;
  }

  private async handle(method: string, url: string, headers: IncomingHttpHeaders, rawBody: string, res: ServerResponse): Promise<void> {
    const q = url.indexOf('?');
    const path = q < 0 ? url : url.slice(0, q);
    const rawQuery = q < 0 ? '' : url.slice(q + 1);
    const isForm = String(headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded');
    const query = parseParams(rawQuery);
    const form = isForm ? parseParams(rawBody) : {};
    const rec: RecordedRequest = {
      method,
      path,
      rawQuery,
      rawBody,
      headers,
      query,
      form,
      params: { ...query, ...form },
      header: (name) => {
        const v = headers[name.toLowerCase()];
        return Array.isArray(v) ? v.join(', ') : v;
      },
    };
    this.requests.push(rec);
    const route = this.#routes.get(`${method} ${path}`);
    let reply: Reply;
    try {
      reply = route === undefined ? { status: 404, json: { code: -1, msg: `no route ${method} ${path}` } } : typeof route === 'function' ? await route(rec) : route;
    } catch (e) {
      // An assertion inside a route shows up as a 400 envelope carrying its message (not a 5XX, which clients would retry or read as unknown outcome).
      reply = { status: 400, json: { code: -599, msg: e instanceof Error ? e.message : String(e) } };
    }
    if (reply.reset) {
      res.socket?.destroy();
      return;
    }
    if (reply.hang) {
      this.#hanging.add(res);
      res.on('close', () => this.#hanging.delete(res));
      return;
    }
    const body = reply.text ?? (reply.json === undefined ? '' : JSON.stringify(reply.json));
    res.writeHead(reply.status ?? 200, { 'content-type': 'application/json', ...reply.headers });
    res.end(body);
  }
}
