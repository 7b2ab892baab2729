/**
 * The `--queue` Redis URL: `redis://[[user]:password@]host[:port][/db]` (`rediss://` for TLS).
 * Checked before anything connects, and never shown with its password: every message and log line
 * names the URL with the password replaced by `***`. The password need not be on the command line
 * (where `ps` shows it to every user of the machine): it comes from `KANCIL_REDIS_URL` or from a
 * file named by `KANCIL_REDIS_PASSWORD_FILE` (see {@link resolveRedisTarget}).
 */
import { readFileSync } from 'node:fs';
import { ValidationError } from '../../core/errors.js';

/** Where a queue lives. */
export interface RedisTarget {
  readonly host: string;
  readonly port: number;
  readonly db: number;
  readonly username?: string;
  readonly password?: string;
  readonly tls: boolean;
  /** The URL as it may be shown: password replaced. */
  readonly display: string;
  /** Where the password came from, when there is one (`--queue`: on the command line, visible in `ps`). */
  readonly passwordFrom?: string;
}

/** The environment variable holding the whole Redis URL, password included. */
export const REDIS_URL_ENV = 'KANCIL_REDIS_URL';
/** The environment variable naming a file that holds the Redis password (a Docker or systemd secret). */
export const REDIS_PASSWORD_FILE_ENV = 'KANCIL_REDIS_PASSWORD_FILE';

/**
 * The Redis of a command: `url` (the `--queue` value), or `KANCIL_REDIS_URL` when there is none
 * (undefined when neither is given). A URL without a password takes the one of `KANCIL_REDIS_URL`
 * when that names the same host and port, else the first line of the file `KANCIL_REDIS_PASSWORD_FILE`.
 */
export function resolveRedisTarget(url: string | undefined, env: Readonly<Record<string, string | undefined>>, field = '--queue'): RedisTarget | undefined {
  const fromEnv = env[REDIS_URL_ENV] === undefined || env[REDIS_URL_ENV] === '' ? undefined : parseRedisUrl(env[REDIS_URL_ENV], REDIS_URL_ENV);
  if (url === undefined) return fromEnv === undefined ? undefined : { ...fromEnv, ...(fromEnv.password !== undefined ? { passwordFrom: REDIS_URL_ENV } : {}) };
  const t = parseRedisUrl(url, field);
  if (t.password !== undefined) return { ...t, passwordFrom: field };
  if (fromEnv?.password !== undefined && fromEnv.host === t.host && fromEnv.port === t.port) return { ...t, ...(fromEnv.username !== undefined && t.username === undefined ? { username: fromEnv.username } : {}), password: fromEnv.password, passwordFrom: REDIS_URL_ENV };
  const file = env[REDIS_PASSWORD_FILE_ENV];
  if (file === undefined || file === '') return t;
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new ValidationError(REDIS_PASSWORD_FILE_ENV, file, `cannot be read: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  const password = text.split(/\r?\n/)[0] ?? '';
  if (password === '') throw new ValidationError(REDIS_PASSWORD_FILE_ENV, file, 'is empty: its first line is the Redis password');
  return { ...t, password, passwordFrom: file };
}

/** A warning for a password given where `ps` shows it, or undefined. */
export function passwordWarning(t: RedisTarget, field = '--queue'): string | undefined {
  return t.passwordFrom !== field ? undefined : `the Redis password in ${field} is visible to every user of this machine (ps); put the URL in ${REDIS_URL_ENV}, or the password in a file named by ${REDIS_PASSWORD_FILE_ENV}`;
}

const DEFAULT_PORT = 6379;

/** `text` with the password of every URL in it (redis://, rediss://, or a mistyped scheme) replaced by `***`. */
export function redactRedisUrls(text: string): string {
  return text.replace(/\b([a-z][a-z0-9+.-]*:\/\/[^:/@\s]*:)[^@\s]*@/gi, '$1***@');
}

/** Parses and checks a Redis URL; a bad one is a ValidationError naming `field` and the (redacted) URL. */
export function parseRedisUrl(url: string, field = '--queue'): RedisTarget {
  const display = redactRedisUrls(url);
  const bad = (rule: string): never => {
    throw new ValidationError(field, display, rule);
  };
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return bad('not a URL; expected redis://host:port[/db]');
  }
  if (u.protocol !== 'redis:' && u.protocol !== 'rediss:') bad(`scheme ${u.protocol} is not redis: or rediss:`);
  if (u.hostname === '') bad('no host; expected redis://host:port[/db]');
  const port = u.port === '' ? DEFAULT_PORT : Number(u.port);
  const dbText = u.pathname.replace(/^\//, '');
  if (!/^\d*$/.test(dbText) || Number(dbText) > 65535) bad(`database ${JSON.stringify(dbText)} is not a number`);
  if (u.search !== '' || u.hash !== '') bad('query and fragment are not supported');
  const username = u.username === '' ? undefined : decodeURIComponent(u.username);
  const password = u.password === '' ? undefined : decodeURIComponent(u.password);
  return {
    // An IPv6 literal keeps its brackets in URL.hostname; a socket connects to the bare address.
    host: u.hostname.replace(/^\[(.*)\]$/, '$1'),
    port,
    db: dbText === '' ? 0 : Number(dbText),
    ...(username !== undefined ? { username } : {}),
    ...(password !== undefined ? { password } : {}),
    tls: u.protocol === 'rediss:',
    display,
  };
}
