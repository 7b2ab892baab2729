/**
 * The console's HTTP server (node:http, one process with the bot): JSON endpoints of the run's
 * state, operator commands, a live feed as server-sent events, the dashboard page and /metrics.
 *
 * Access: reads are open on a loopback bind and need the bearer token on any other; commands
 * always need it (without a token configured they are refused with 403, saying how to enable
 * them). A wrong token is 401 and logged with the caller's address, never with the token. Every
 * command is journalled in the ledger before it acts. A handler that fails answers 500 and is
 * logged: nothing here can throw into the trading path.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TradingStateName } from '../bus/events.js';
import { checkBearer, isLoopbackHost, CONSOLE_TOKEN_ENV } from './auth.js';
import { DASHBOARD_CSP } from './dashboard.js';
import type { FeedMessage, RunFeed } from './feed.js';
import type { ConsoleRun } from './source.js';
import { bookJson, orderJson, pnlByQuote, positionJson } from './views.js';

/** What the server logs (pino-compatible). */
export interface ConsoleLogger {
  info(o: object, msg: string): void;
  warn(o: object, msg: string): void;
  error(o: object, msg: string): void;
}

/** A source of the Prometheus exposition text. */
export interface MetricsSource {
  readonly contentType: string;
  text(): Promise<string>;
}

/** Options of {@link ConsoleServer.start}. */
export interface ConsoleServerOptions {
  readonly run: ConsoleRun;
  readonly feed: RunFeed;
  readonly host: string;
  /** 0: any free port. */
  readonly port: number;
  /** The bearer token; undefined: commands refused, reads open (loopback only). */
  readonly token: string | undefined;
  readonly log: ConsoleLogger;
  readonly metrics?: MetricsSource;
  /** The dashboard page's HTML. */
  readonly page?: () => string;
}

/** Operator commands and the trading state each one sets. */
const STATE_COMMANDS: Readonly<Record<string, TradingStateName>> = { halt: 'HALTED', reduce: 'REDUCING', resume: 'ACTIVE' };

/** Largest request body read (a command is a few fields). */
const MAX_BODY = 16 * 1024;

/** A slow feed client is dropped once this much is waiting for it. */
const MAX_BUFFERED = 1 << 20;

class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** The running console server. */
export class ConsoleServer {
  readonly #o: ConsoleServerOptions;
  readonly #server: http.Server;
  readonly #clients = new Set<http.ServerResponse>();
  readonly #openReads: boolean;
  #heartbeat: NodeJS.Timeout | undefined;
  #url = '';

  private constructor(o: ConsoleServerOptions) {
    this.#o = o;
    this.#openReads = isLoopbackHost(o.host);
    this.#server = http.createServer((req, res) => {
      this.#handle(req, res).catch((err: unknown) => this.#fail(res, err, req));
    });
  }

  /** Starts listening; rejects when the address cannot be bound. */
  static async start(o: ConsoleServerOptions): Promise<ConsoleServer> {
    const s = new ConsoleServer(o);
    await new Promise<void>((resolve, reject) => {
      s.#server.once('error', reject);
      s.#server.listen(o.port, o.host, () => {
        s.#server.off('error', reject);
        resolve();
      });
    });
    // A later server error (e.g. a socket fault) is logged; it must not become an uncaught exception.
    s.#server.on('error', (err) => o.log.error({ err: err.message }, 'console server error'));
    const a = s.#server.address() as AddressInfo;
    const host = a.family === 'IPv6' ? `[${a.address}]` : a.address;
    s.#url = `http://${host}:${a.port}`;
    s.#heartbeat = setInterval(() => {
      for (const c of s.#clients) c.write(': keep-alive\n\n');
    }, 15_000);
    s.#heartbeat.unref();
    return s;
  }

  /** The server's base URL. */
  get url(): string {
    return this.#url;
  }

  /** Number of connected feed clients. */
  get feedClients(): number {
    return this.#clients.size;
  }

  /** Stops accepting, ends the feed streams and closes every connection. */
  async close(): Promise<void> {
    clearInterval(this.#heartbeat);
    for (const c of this.#clients) c.end();
    this.#clients.clear();
    const closed = new Promise<void>((r) => this.#server.close(() => r()));
    this.#server.closeAllConnections();
    await closed;
  }

  async #handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://console');
    const path = url.pathname.replace(/\/+$/, '') || '/';
    const method = req.method ?? 'GET';
    if (method === 'POST' && path.startsWith('/api/')) {
      if (!this.#authorised(req, path, true)) return this.#refuse(req, res, path, true);
      return this.#command(req, res, path);
    }
    if (method !== 'GET' && method !== 'HEAD') throw new HttpError(405, `${method} is not allowed on ${path}`);
    if (!this.#authorised(req, path, false)) return this.#refuse(req, res, path, false);
    if (path === '/') {
      if (!this.#o.page) throw new HttpError(404, 'no dashboard page in this build; see /api');
      res.setHeader('content-security-policy', DASHBOARD_CSP);
      return send(res, 200, 'text/html; charset=utf-8', this.#o.page());
    }
    if (path === '/metrics') {
      if (!this.#o.metrics) throw new HttpError(404, 'metrics are not enabled');
      return send(res, 200, this.#o.metrics.contentType, await this.#o.metrics.text());
    }
    if (path === '/api/events') return this.#stream(req, res);
    const body = this.#read(path, url);
    if (body === undefined) throw new HttpError(404, `no such endpoint: ${path} (see /api)`);
    return json(res, 200, body);
  }

  /** The read endpoints. */
  #read(path: string, url: URL): unknown {
    const { run, feed } = this.#o;
    switch (path) {
      case '/api':
        return { endpoints: ['/api/status', '/api/strategies', '/api/positions', '/api/balances', '/api/orders', '/api/fills', '/api/intents', '/api/books', '/api/pnl', '/api/snapshot', '/api/events (server-sent events)', '/metrics'], commands: ['POST /api/halt', 'POST /api/reduce', 'POST /api/resume', 'POST /api/cancel-all', 'POST /api/stop', 'POST /api/strategies/<name>/{halt,reduce,resume,cancel-all}'], commandsEnabled: this.#o.token !== undefined };
      case '/api/status':
        return this.#status();
      case '/api/strategies':
        return run.strategies();
      case '/api/positions':
        return run.positions().map(positionJson);
      case '/api/balances':
        return run.balances().map((b) => ({ asset: b.asset, free: b.free.toFixed(), locked: b.locked.toFixed() }));
      case '/api/orders':
        return run.openOrders().map(orderJson);
      case '/api/fills':
        return feed.fills.list().slice(-limitOf(url));
      case '/api/intents':
        return { stats: run.intentStats(), rejectionsByReason: Object.fromEntries(feed.rejectionCounts), rejections: feed.rejections.list().slice(-limitOf(url)) };
      case '/api/books':
        return run.bookTops().map(bookJson);
      case '/api/pnl':
        return { total: pnlByQuote(run.positions()), positions: run.positions().map(positionJson), equity: feed.equity.list() };
      case '/api/snapshot':
        return this.#snapshot();
      default:
        return undefined;
    }
  }

  #status(): Record<string, unknown> {
    const { run } = this.#o;
    const now = Date.now();
    return { name: run.name, mode: run.mode, startedAt: run.startedAt, uptimeSec: Math.round((now - run.startedAt) / 1000), tradingState: run.tradingState(), strategies: run.strategies(), openOrders: run.openOrders().length, intents: run.intentStats(), pnl: pnlByQuote(run.positions()), commandsEnabled: this.#o.token !== undefined };
  }

  /** Everything the page shows, in one answer (its first paint). */
  #snapshot(): Record<string, unknown> {
    const { run, feed } = this.#o;
    return {
      status: this.#status(),
      positions: run.positions().map(positionJson),
      balances: run.balances().map((b) => ({ asset: b.asset, free: b.free.toFixed(), locked: b.locked.toFixed() })),
      orders: run.openOrders().map(orderJson),
      fills: feed.fills.list(),
      rejections: feed.rejections.list(),
      rejectionsByReason: Object.fromEntries(feed.rejectionCounts),
      books: run.bookTops().map(bookJson),
      equity: feed.equity.list(),
      events: feed.events.list(),
      logs: feed.logs.list(),
    };
  }

  /** Server-sent events of the feed; a client that cannot keep up is dropped (it reconnects and reloads). */
  #stream(req: http.IncomingMessage, res: http.ServerResponse): void {
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-store', connection: 'keep-alive' });
    res.write('retry: 2000\n\n');
    this.#clients.add(res);
    const off = this.#o.feed.listen((m: FeedMessage) => {
      if (res.writableLength > MAX_BUFFERED) {
        res.destroy();
        return;
      }
      res.write(`event: ${m.type}\ndata: ${JSON.stringify(m)}\n\n`);
    });
    const done = (): void => {
      off();
      this.#clients.delete(res);
    };
    req.on('close', done);
    res.on('error', done);
  }

  /** POST /api/<command> and /api/strategies/<name>/<command>. */
  async #command(req: http.IncomingMessage, res: http.ServerResponse, path: string): Promise<void> {
    const { run } = this.#o;
    const m = /^\/api\/(?:strategies\/([^/]+)\/)?([a-z-]+)$/.exec(path);
    if (!m) throw new HttpError(404, `no such command: ${path} (see /api)`);
    const strategy = m[1] === undefined ? undefined : decodeURIComponent(m[1]);
    const name = m[2] ?? '';
    const body = await readBody(req);
    const reason = body.reason === undefined ? `console ${name}` : body.reason;
    if (typeof reason !== 'string' || reason.length > 200) throw new HttpError(400, 'reason: expected a string of at most 200 characters');
    if (strategy !== undefined && !run.strategies().some((s) => s.name === strategy)) throw new HttpError(404, `no strategy named ${JSON.stringify(strategy)} in this run (it has ${run.strategies().map((s) => s.name).join(', ')})`);
    const known = name in STATE_COMMANDS || name === 'cancel-all' || (name === 'stop' && strategy === undefined);
    if (!known) throw new HttpError(404, `no such command: ${name}${strategy !== undefined ? ` for a strategy` : ''} (halt, reduce, resume, cancel-all${strategy === undefined ? ', stop' : ''})`);
    const from = req.socket.remoteAddress;
    // Journalled before it acts: the ledger says who asked for what even if acting fails.
    run.journal('console', { command: name, strategy, reason, from });
    this.#o.log.info({ command: name, strategy, reason, from }, 'console command');
    const state = STATE_COMMANDS[name];
    if (state !== undefined) {
      run.setState({ strategy }, state, reason);
      return json(res, 200, { ok: true, command: name, strategy, state });
    }
    if (name === 'cancel-all') return json(res, 200, { ok: true, command: name, strategy, cancelled: run.cancelAll({ strategy }) });
    json(res, 202, { ok: true, command: name });
    run.stop(`operator: ${reason}`);
  }

  #authorised(req: http.IncomingMessage, path: string, command: boolean): boolean {
    const token = this.#o.token;
    if (!command && this.#openReads) return true;
    if (token === undefined) return false;
    return checkBearer(req.headers.authorization, token) === 'ok';
  }

  #refuse(req: http.IncomingMessage, res: http.ServerResponse, path: string, command: boolean): void {
    if (this.#o.token === undefined) {
      json(res, 403, { error: `commands are disabled: start the run with ${CONSOLE_TOKEN_ENV} set and send it as a bearer token` });
      return;
    }
    // Logged without the header: a near-miss token in a log is a leaked token.
    this.#o.log.warn({ from: req.socket.remoteAddress, method: req.method, path, command, auth: req.headers.authorization === undefined ? 'missing' : 'wrong' }, 'console request refused: wrong or missing token');
    res.setHeader('www-authenticate', 'Bearer realm="kancil"');
    json(res, 401, { error: 'a valid bearer token is required (Authorization: Bearer <token>)' });
  }

  #fail(res: http.ServerResponse, err: unknown, req: http.IncomingMessage): void {
    const status = err instanceof HttpError ? err.status : 500;
    const message = err instanceof Error ? err.message : String(err);
    if (status >= 500) this.#o.log.error({ err: message, path: req.url }, 'console request failed');
    if (res.headersSent) {
      res.destroy();
      return;
    }
    json(res, status, { error: message });
  }
}

function limitOf(url: URL): number {
  const v = url.searchParams.get('limit');
  if (v === null) return 200;
  if (!/^\d{1,4}$/.test(v) || Number(v) === 0) throw new HttpError(400, `limit=${JSON.stringify(v)}: expected a whole number from 1 to 9999`);
  return Number(v);
}

async function readBody(req: http.IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of req) {
    size += (c as Buffer).length;
    if (size > MAX_BODY) throw new HttpError(413, `body larger than ${MAX_BODY} bytes`);
    chunks.push(c as Buffer);
  }
  const text = Buffer.concat(chunks).toString('utf8').trim();
  if (text === '') return {};
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    throw new HttpError(400, 'body: expected JSON such as {"reason":"..."}');
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new HttpError(400, 'body: expected a JSON object');
  return v as Record<string, unknown>;
}

function send(res: http.ServerResponse, status: number, type: string, body: string): void {
  res.writeHead(status, { 'content-type': type, 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' });
  res.end(body);
}

function json(res: http.ServerResponse, status: number, body: unknown): void {
  send(res, status, 'application/json; charset=utf-8', JSON.stringify(body));
}
