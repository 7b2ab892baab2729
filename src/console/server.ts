/**
 * The console's HTTP server (node:http, one process with the bot): JSON endpoints of the run's
 * state, operator commands, a live feed as server-sent events, the dashboard page and /metrics.
 *
 * Before a handler runs, a request passes requestGuard's checks (Host against DNS rebinding,
 * Origin against cross-site use, the body cap read from the headers, the path and method) and
 * then access: commands always need the bearer token (without one configured they are refused
 * with 403, saying how to enable them); reads need it whenever one is configured, unless
 * `publicReads` keeps them open on a loopback bind; the page itself holds no data. Wrong tokens
 * are throttled per address and their log lines aggregated (authThrottle). Every command is
 * journalled in the ledger before it acts. A handler that fails answers 500 and is logged:
 * nothing here can throw into the trading path.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { ConfigError } from '../core/errors.js';
import { executeCommand, MAX_REASON } from './commands.js';
import { checkBearer, isLoopbackHost, CONSOLE_TOKEN_ENV } from './auth.js';
import { AuthThrottle } from './authThrottle.js';
import type { FeedMessage, RunFeed } from './feed.js';
import type { ConsoleRun } from './source.js';
import { checkBodyHeaders, checkHost, checkOrigin, isRefusal, route, RouteKind, type Refusal, type Route } from './requestGuard.js';
import { pageCsp, SECURITY_HEADERS } from './securityHeaders.js';
import { profitByDay } from './profit.js';
import { bookJson, fillPage, orderJson, pnlByQuote, positionJson } from './views.js';
import { scrubSecretText } from '../core/secretScrub.js';

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
  /** Host names served besides the loopback names and the bound address (a proxy's public name). */
  readonly allowedHosts?: readonly string[];
  /** With a token configured, still answer reads without it (loopback binds only). */
  readonly publicReads?: boolean;
  readonly limits?: Partial<ConsoleLimits>;
}

/** Caps on what callers may hold open. */
export interface ConsoleLimits {
  /** Live feed streams at once (the next is 503). */
  readonly sseClients: number;
  /** Sockets at once (the next is closed unanswered). */
  readonly connections: number;
  /** A request's headers must arrive within this (slow-loris); the whole request within 30 s. */
  readonly headersTimeoutMs: number;
}

/** A console is used by one operator and a scraper: generous for that, small for a flood. */
export const DEFAULT_LIMITS: ConsoleLimits = { sseClients: 16, connections: 64, headersTimeoutMs: 10_000 };

const REQUEST_TIMEOUT_MS = 30_000;

/** How often counted refusals are summarised in the log. */
const REFUSAL_SUMMARY_MS = 60_000;

/** A socket whose unread body is refused gets this long to read the answer before it is closed. */
const LINGER_MS = 2_000;

/** Largest request body read (a command is a few fields). */
const MAX_BODY = 16 * 1024;

/** A slow feed client is dropped once this much is waiting for it. */
const MAX_BUFFERED = 1 << 20;

class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly headers: Readonly<Record<string, string>> = {},
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
  readonly #limits: ConsoleLimits;
  readonly #throttle: AuthThrottle;
  #heartbeat: NodeJS.Timeout | undefined;
  #summaries: NodeJS.Timeout | undefined;
  #url = '';

  private constructor(o: ConsoleServerOptions) {
    this.#o = o;
    if (o.publicReads === true && !isLoopbackHost(o.host)) throw new ConfigError('console', 'console.publicReads', true, `open reads are for a loopback bind only, and console.host is ${o.host}`);
    // Without a token the console is read-only and loopback-only (the run refuses any other bind).
    this.#openReads = isLoopbackHost(o.host) && (o.token === undefined || o.publicReads === true);
    this.#limits = { ...DEFAULT_LIMITS, ...o.limits };
    this.#throttle = new AuthThrottle(o.log);
    const headersTimeout = this.#limits.headersTimeoutMs;
    // Node checks the timeouts on this interval (30 s by default, which would triple them).
    const timeouts = { headersTimeout, requestTimeout: Math.max(REQUEST_TIMEOUT_MS, headersTimeout), connectionsCheckingInterval: Math.max(50, Math.min(5_000, Math.floor(headersTimeout / 2))) };
    this.#server = http.createServer(timeouts, (req, res) => {
      this.#handle(req, res).catch((err: unknown) => this.#fail(res, err, req));
    });
    this.#server.maxConnections = this.#limits.connections;
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
    s.#summaries = setInterval(() => s.#throttle.flush(), REFUSAL_SUMMARY_MS);
    s.#summaries.unref();
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
    clearInterval(this.#summaries);
    this.#throttle.flush();
    for (const c of this.#clients) c.end();
    this.#clients.clear();
    const closed = new Promise<void>((r) => this.#server.close(() => r()));
    this.#server.closeAllConnections();
    await closed;
  }

  async #handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const method = req.method ?? 'GET';
    const host = req.headers.host ?? '';
    const early = checkHost(req.headers.host, this.#o.host, this.#o.allowedHosts ?? []) ?? checkBodyHeaders(method, req.headers, MAX_BODY);
    if (early) return this.#refuseWith(req, res, early);
    const r = route(method, req.url);
    if (isRefusal(r)) return this.#refuseWith(req, res, r);
    const cross = checkOrigin(req.headers.origin, host);
    if (cross) return this.#refuseWith(req, res, cross);
    if (r.kind !== RouteKind.PAGE && !this.#admit(req, res, r)) return;
    switch (r.kind) {
      case RouteKind.PAGE:
        if (!this.#o.page) throw new HttpError(404, 'no dashboard page in this build; see /api');
        return this.#page(res, this.#o.page());
      case RouteKind.EVENTS:
        return this.#stream(req, res);
      case RouteKind.COMMAND:
        return this.#command(req, res, r);
      case RouteKind.READ:
        if (r.path === '/metrics') {
          if (!this.#o.metrics) throw new HttpError(404, 'metrics are not enabled');
          return send(res, 200, this.#o.metrics.contentType, await this.#o.metrics.text());
        }
        return json(res, 200, this.#read(r.path, r.url));
      default: {
        const never: never = r.kind;
        throw new Error(`unhandled route ${String(never)}`);
      }
    }
  }

  #page(res: http.ServerResponse, html: string): void {
    send(res, 200, 'text/html; charset=utf-8', html, { 'content-security-policy': pageCsp(html) });
  }

  /** The read endpoints. */
  #read(path: string, url: URL): unknown {
    const { run, feed } = this.#o;
    switch (path) {
      case '/api':
        return { endpoints: ['/api/status', '/api/strategies', '/api/positions', '/api/balances', '/api/account', '/api/orders', '/api/fills?offset&limit (newest first, with the total)', '/api/daily', '/api/intents', '/api/books', '/api/pnl', '/api/snapshot', '/api/events (server-sent events)', '/metrics'], commands: ['POST /api/halt', 'POST /api/reduce', 'POST /api/resume', 'POST /api/cancel-all', 'POST /api/stop', 'POST /api/strategies/<name>/{halt,reduce,resume,cancel-all}'], commandsEnabled: this.#o.token !== undefined };
      case '/api/status':
        return this.#status();
      case '/api/strategies':
        return run.strategies();
      case '/api/positions':
        return run.positions().map(positionJson);
      case '/api/account':
        return this.#account();
      case '/api/balances':
        return run.balances().map((b) => ({ asset: b.asset, free: b.free.toFixed(), locked: b.locked.toFixed() }));
      case '/api/orders':
        return run.openOrders().map(orderJson);
      case '/api/fills':
        return fillPage(run.recentFills(ALL), offsetOf(url), limitOf(url));
      case '/api/daily':
        return profitByDay(run.recentFills(ALL));
      case '/api/intents':
        return { stats: run.intentStats(), rejectionsByReason: Object.fromEntries(feed.rejectionCounts), rejections: feed.rejections.list().slice(-limitOf(url)) };
      case '/api/books':
        return run.bookTops().map(bookJson);
      case '/api/pnl':
        return { total: pnlByQuote(run.positions()), positions: run.positions().map(positionJson), equity: feed.equity.list() };
      case '/api/snapshot':
        return this.#snapshot();
      default:
        throw new HttpError(404, `no such endpoint: ${path} (see /api)`);
    }
  }

  /** Balances and the account's equity in one quote asset (null where the run cannot value it). */
  #account(): Record<string, unknown> {
    const { run } = this.#o;
    const e = run.equity?.();
    return { balances: run.balances().map((b) => ({ asset: b.asset, free: b.free.toFixed(), locked: b.locked.toFixed() })), equity: e === undefined ? null : { quote: e.quote, value: e.value.toFixed(), unvalued: e.unvalued } };
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
      fillsTotal: run.recentFills(ALL).length,
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
    if (this.#clients.size >= this.#limits.sseClients) throw new HttpError(503, `${this.#limits.sseClients} live feeds are open already; retry later`, { 'retry-after': '10' });
    res.writeHead(200, { ...SECURITY_HEADERS, 'content-type': 'text/event-stream; charset=utf-8', connection: 'keep-alive' });
    if (req.method === 'HEAD') {
      res.end();
      return;
    }
    res.write('retry: 2000\n\n');
    this.#clients.add(res);
    const off = this.#o.feed.listen((m: FeedMessage) => {
      if (res.writableLength > MAX_BUFFERED) {
        res.destroy();
        return;
      }
      res.write(`event: ${m.type}\ndata: ${scrubSecretText(JSON.stringify(m))}\n\n`);
    });
    const done = (): void => {
      off();
      this.#clients.delete(res);
    };
    req.on('close', done);
    res.on('error', done);
  }

  /** POST /api/<command> and /api/strategies/<name>/<command>. */
  async #command(req: http.IncomingMessage, res: http.ServerResponse, r: Route): Promise<void> {
    const { run } = this.#o;
    const strategy = r.strategy;
    const name = r.command ?? '';
    const body = await readBody(req);
    const reason = body.reason === undefined ? `console ${name}` : body.reason;
    if (typeof reason !== 'string') throw new HttpError(400, `reason: expected a string of at most ${MAX_REASON} characters`);
    const done = executeCommand(run, this.#o.log, { name, strategy, reason, source: 'console', from: req.socket.remoteAddress });
    if (!done.ok) throw new HttpError(done.status, done.error);
    // A stop is under way, not done: 202.
    json(res, done.command === 'stop' ? 202 : 200, done);
  }

  /** Access to a read, the feed or a command; false once it has answered the refusal. */
  #admit(req: http.IncomingMessage, res: http.ServerResponse, r: Route): boolean {
    const command = r.kind === RouteKind.COMMAND;
    if (!command && this.#openReads) return true;
    const token = this.#o.token;
    if (token === undefined) {
      const why = command ? `commands are disabled: start the run with ${CONSOLE_TOKEN_ENV} set and send it as a bearer token` : `reads beyond loopback need ${CONSOLE_TOKEN_ENV}`;
      this.#refuseWith(req, res, { status: 403, message: why });
      return false;
    }
    const from = req.socket.remoteAddress ?? 'unknown';
    // Logged without the header: a near-miss token in a log is a leaked token.
    const detail = { method: req.method, path: r.path, command };
    const wait = this.#throttle.blockedFor(from);
    if (wait > 0) {
      this.#throttle.refused(from, 'throttled', detail);
      const sec = Math.ceil(wait / 1000);
      this.#refuseWith(req, res, { status: 429, message: `too many wrong tokens from ${from}: retry in ${sec} s`, headers: { 'retry-after': String(sec) } });
      return false;
    }
    const result = checkBearer(req.headers.authorization, token);
    if (result === 'ok') {
      this.#throttle.succeeded(from);
      return true;
    }
    this.#throttle.refused(from, result, detail);
    this.#refuseWith(req, res, { status: 401, message: 'a valid bearer token is required (Authorization: Bearer <token>)', headers: { 'www-authenticate': 'Bearer realm="kancil"' } });
    return false;
  }

  /** Answers a refusal; one whose body is left unread also ends the connection, so the body is never read. */
  #refuseWith(req: http.IncomingMessage, res: http.ServerResponse, r: Refusal): void {
    if (r.status === 413) closeUnread(req, res);
    json(res, r.status, { error: r.message }, r.headers);
  }

  #fail(res: http.ServerResponse, err: unknown, req: http.IncomingMessage): void {
    const status = err instanceof HttpError ? err.status : 500;
    const message = err instanceof Error ? err.message : String(err);
    if (status === 500) this.#o.log.error({ err: message, path: req.url }, 'console request failed');
    if (res.headersSent) {
      res.destroy();
      return;
    }
    this.#refuseWith(req, res, { status, message, ...(err instanceof HttpError ? { headers: err.headers } : {}) });
  }
}

/** Every fill of the run: the ledger keeps them all, so totals and pages are the ledger's, not the feed's retained few. */
const ALL = Number.MAX_SAFE_INTEGER;

function offsetOf(url: URL): number {
  const v = url.searchParams.get('offset');
  if (v === null) return 0;
  if (!/^\d{1,9}$/.test(v)) throw new HttpError(400, `offset=${JSON.stringify(v)}: expected a whole number from 0`);
  return Number(v);
}

function limitOf(url: URL): number {
  const v = url.searchParams.get('limit');
  if (v === null) return 200;
  if (!/^\d{1,4}$/.test(v) || Number(v) === 0) throw new HttpError(400, `limit=${JSON.stringify(v)}: expected a whole number from 1 to 9999`);
  return Number(v);
}

async function readBody(req: http.IncomingMessage): Promise<Record<string, unknown>> {
  // Events, not `for await`: leaving an async iterator destroys the socket before the 413 is sent.
  const chunks = await new Promise<Buffer[]>((resolve, reject) => {
    const got: Buffer[] = [];
    let size = 0;
    const onData = (c: Buffer): void => {
      size += c.length;
      if (size <= MAX_BODY) {
        got.push(c);
        return;
      }
      req.off('data', onData);
      req.pause();
      reject(new HttpError(413, `body larger than ${MAX_BODY} bytes`));
    };
    req.on('data', onData);
    req.once('end', () => resolve(got));
    req.once('error', reject);
  });
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

/** Every response body leaves through here: secret values (a plugin's error, a log line) are scrubbed. */
function send(res: http.ServerResponse, status: number, type: string, body: string, headers: Readonly<Record<string, string>> = {}): void {
  res.writeHead(status, { ...SECURITY_HEADERS, 'content-type': type, ...headers });
  res.end(scrubSecretText(body));
}

function json(res: http.ServerResponse, status: number, body: unknown, headers?: Readonly<Record<string, string>>): void {
  send(res, status, 'application/json; charset=utf-8', JSON.stringify(body), headers);
}

/**
 * Ends the connection after this answer without reading the body the caller is still sending:
 * the socket stops reading (the sender's window fills), says FIN after the answer, and is
 * destroyed once the caller has had time to read it.
 */
function closeUnread(req: http.IncomingMessage, res: http.ServerResponse): void {
  res.shouldKeepAlive = false;
  res.setHeader('connection', 'close');
  const socket = req.socket;
  res.once('finish', () => {
    socket.pause();
    socket.end();
    setTimeout(() => socket.destroy(), LINGER_MS).unref();
  });
}
