/**
 * Who may use the console: a bearer token (from the environment) for every command, and for every
 * request at all when the console listens beyond loopback. Compared in constant time; the token is
 * never logged, echoed or put in a page.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { isIP } from 'node:net';

/** Environment variable holding the console's bearer token. */
export const CONSOLE_TOKEN_ENV = 'KANCIL_CONSOLE_TOKEN';

/** Shortest token accepted: a guessable one is no protection. */
export const MIN_TOKEN_LENGTH = 16;

/**
 * Why a configured token cannot serve, or undefined when it can. A bearer header carries one run
 * of visible ASCII, so a token with whitespace (a newline from `$(cat file)`, a pasted space) or
 * other characters could never match and would lock the operator out; a short one is guessable.
 */
export function tokenProblem(token: string): string | undefined {
  if (token.trim() !== token) return `${CONSOLE_TOKEN_ENV} starts or ends with whitespace (a newline from a file?): no bearer header could match it; remove it`;
  if (!/^[\x21-\x7e]*$/.test(token)) return `${CONSOLE_TOKEN_ENV} holds a space, a control or a non-ASCII character: no bearer header could match it; use letters, digits and punctuation`;
  if (token.length < MIN_TOKEN_LENGTH) return `${CONSOLE_TOKEN_ENV} has ${token.length} characters: the console token must be at least ${MIN_TOKEN_LENGTH} characters`;
  return undefined;
}

/** True for a host that only this machine can reach (127.0.0.0/8, ::1, localhost). */
export function isLoopbackHost(host: string): boolean {
  if (host === 'localhost') return true;
  const bare = host.replace(/^\[|\]$/g, '');
  if (isIP(bare) === 4) return bare.startsWith('127.');
  return bare === '::1';
}

/** Result of checking a request's Authorization header. */
export type AuthResult = 'ok' | 'missing' | 'wrong';

/** Checks `Authorization: Bearer <token>` against `token` (hashes compared, so lengths leak nothing). */
export function checkBearer(header: string | undefined, token: string): AuthResult {
  if (header === undefined || header === '') return 'missing';
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!m) return 'wrong';
  const a = createHash('sha256').update(m[1] ?? '').digest();
  const b = createHash('sha256').update(token).digest();
  return timingSafeEqual(a, b) ? 'ok' : 'wrong';
}
