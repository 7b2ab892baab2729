/**
 * The checks a console request passes before any handler sees it, each a pure function of the
 * request line and headers: the Host it was sent to (DNS rebinding), the Origin of a browser
 * request (cross-site commands and streams), the body it announces, and whether its path and
 * method name something the console serves. A failed check is a {@link Refusal}, answered as is.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { isLoopbackHost } from './auth.js';

/** An answer instead of the handler: status, a message naming what was wrong, extra headers. */
export interface Refusal {
  readonly status: number;
  readonly message: string;
  readonly headers?: Readonly<Record<string, string>>;
}

/** What a path is, for access and methods. */
export const RouteKind = { PAGE: 'page', READ: 'read', EVENTS: 'events', COMMAND: 'command' } as const;
/** One of {@link RouteKind}. */
export type RouteKindName = (typeof RouteKind)[keyof typeof RouteKind];

/** A request that passed the path and method checks. */
export interface Route {
  readonly kind: RouteKindName;
  /** The path without trailing slashes, still percent-encoded. */
  readonly path: string;
  readonly url: URL;
  /** For a strategy's command, its name decoded. */
  readonly strategy?: string;
  /** For a command, its name. */
  readonly command?: string;
}

/** The read endpoints (GET or HEAD). */
export const READ_PATHS: readonly string[] = ['/api', '/api/status', '/api/strategies', '/api/positions', '/api/balances', '/api/account', '/api/orders', '/api/fills', '/api/daily', '/api/intents', '/api/books', '/api/pnl', '/api/snapshot', '/metrics'];
const RUN_COMMANDS = ['halt', 'reduce', 'resume', 'cancel-all', 'stop'];
const STRATEGY_COMMANDS = ['halt', 'reduce', 'resume', 'cancel-all'];
const READ_METHODS = ['GET', 'HEAD'];
const COMMAND_METHODS = ['POST'];

/** The host name of a Host header value (lower case, no port, IPv6 without brackets); undefined when it is not one. */
export function hostName(header: string): string | undefined {
  const h = header.trim().toLowerCase();
  const m = /^(?:\[([0-9a-f:.]+)\]|([a-z0-9._-]+))(?::(\d{1,5}))?$/.exec(h);
  if (!m) return undefined;
  return m[1] ?? m[2];
}

/** Port of a Host or Origin authority, or undefined when it names none. */
function portOf(authority: string): number | undefined {
  const m = /:(\d{1,5})$/.exec(authority);
  return m?.[1] === undefined ? undefined : Number(m[1]);
}

/**
 * The Host check against DNS rebinding: a page on a name the attacker controls, resolved to
 * this machine, sends that name. Served: the loopback names, the address the console is bound
 * to (unless it is a wildcard) and `console.allowedHosts`.
 */
export function checkHost(header: string | undefined, bindHost: string, allowed: readonly string[]): Refusal | undefined {
  if (header === undefined || header.trim() === '') return { status: 400, message: 'a Host header is required' };
  const name = hostName(header);
  if (name === undefined) return { status: 400, message: `Host ${JSON.stringify(header)} is not a host name` };
  if (isLoopbackHost(name)) return undefined;
  const bind = bindHost.toLowerCase().replace(/^\[|\]$/g, '');
  if (name === bind && bind !== '0.0.0.0' && bind !== '::') return undefined;
  if (allowed.some((a) => a.toLowerCase() === name)) return undefined;
  return { status: 403, message: `Host ${JSON.stringify(header)} is not served here: add ${JSON.stringify(name)} to console.allowedHosts to allow it` };
}

/**
 * The Origin check: a browser names the page a request comes from, and only the console's own
 * page (same host and port as the request's Host) may use it. No Origin: not a cross-site
 * browser request (curl, a script, a same-origin GET). The scheme is not compared: behind a TLS
 * proxy the page is https and the console plain http.
 */
export function checkOrigin(origin: string | undefined, host: string): Refusal | undefined {
  if (origin === undefined) return undefined;
  const refuse: Refusal = { status: 403, message: `Origin ${JSON.stringify(origin)} is not this console (${host}): commands and reads are answered only to the console's own page` };
  let u: URL;
  try {
    u = new URL(origin);
  } catch {
    return refuse;
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return refuse;
  if (u.hostname.replace(/^\[|\]$/g, '') !== hostName(host)) return refuse;
  const originPort = u.port === '' ? (u.protocol === 'https:' ? 443 : 80) : Number(u.port);
  const hostPort = portOf(host.trim());
  // A Host without a port is the scheme's default port, whichever scheme the page used.
  if (hostPort === undefined ? originPort !== 80 && originPort !== 443 : originPort !== hostPort) return refuse;
  return undefined;
}

/**
 * The body cap, decided from the headers before a byte of the body is read: a command's body is
 * at most `maxBody` bytes and no other request has one.
 */
export function checkBodyHeaders(method: string, headers: IncomingHttpHeaders, maxBody: number): Refusal | undefined {
  const length = headers['content-length'] === undefined ? undefined : Number(headers['content-length']);
  const chunked = headers['transfer-encoding'] !== undefined;
  if (method !== 'POST') {
    if ((length !== undefined && length > 0) || chunked) return { status: 413, message: `a ${method} request carries no body` };
    return undefined;
  }
  if (length !== undefined && length > maxBody) return { status: 413, message: `body of ${length} bytes: at most ${maxBody} bytes` };
  return undefined;
}

function decode(segment: string, whole: string): string | Refusal {
  try {
    return decodeURIComponent(segment);
  } catch {
    return { status: 400, message: `path: bad percent-encoding in ${JSON.stringify(whole)}` };
  }
}

function methodRefusal(method: string, path: string, allow: readonly string[]): Refusal | undefined {
  if (allow.includes(method)) return undefined;
  return { status: 405, message: `${method} is not allowed on ${path} (${allow.join(', ')})`, headers: { allow: allow.join(', ') } };
}

/** The route of a request line: 400 for a malformed target, 404 for no such path, 405 (with Allow) for a wrong method. */
export function route(method: string, target: string | undefined): Route | Refusal {
  if (target === undefined || !target.startsWith('/') || target.startsWith('//')) return { status: 400, message: `request target ${JSON.stringify(target ?? '')}: expected a path starting with /` };
  const url = new URL(target, 'http://console');
  const path = url.pathname.replace(/\/+$/, '') || '/';
  const decoded = decode(path, path);
  if (typeof decoded !== 'string') return decoded;
  if (path === '/') return methodRefusal(method, path, READ_METHODS) ?? { kind: RouteKind.PAGE, path, url };
  if (path === '/api/events') return methodRefusal(method, path, READ_METHODS) ?? { kind: RouteKind.EVENTS, path, url };
  if (READ_PATHS.includes(path)) return methodRefusal(method, path, READ_METHODS) ?? { kind: RouteKind.READ, path, url };
  const run = /^\/api\/([a-z-]+)$/.exec(path);
  if (run?.[1] !== undefined && RUN_COMMANDS.includes(run[1])) return methodRefusal(method, path, COMMAND_METHODS) ?? { kind: RouteKind.COMMAND, path, url, command: run[1] };
  const one = /^\/api\/strategies\/([^/]+)\/([^/]+)$/.exec(path);
  if (one?.[1] !== undefined && one[2] !== undefined) {
    if (!STRATEGY_COMMANDS.includes(one[2])) return { status: 404, message: `no such command: ${decode(one[2], path) as string} for a strategy (${STRATEGY_COMMANDS.join(', ')})` };
    const strategy = decode(one[1], path);
    if (typeof strategy !== 'string') return strategy;
    return methodRefusal(method, path, COMMAND_METHODS) ?? { kind: RouteKind.COMMAND, path, url, strategy, command: one[2] };
  }
  return { status: 404, message: `no such endpoint: ${decoded} (see /api)` };
}

/** True for a refusal (the union's discriminant is `kind`, which only a route has). */
export function isRefusal(r: Route | Refusal): r is Refusal {
  return !('kind' in r);
}
