/**
 * The `--queue` Redis URL: `redis://[[user]:password@]host[:port][/db]` (`rediss://` for TLS).
 * Checked before anything connects, and never shown with its password: every message and log line
 * names the URL with the password replaced by `***`.
 */
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
