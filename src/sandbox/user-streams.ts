/**
 * Listen keys (60-minute lifecycle: create, keep-alive, close, expiry) and listen tokens
 * (expirationTime = creation + validity, at most 24 hours) of the sandbox's accounts.
 * Time comes from an injectable clock; `sweep()` is called by the server's timer and by
 * tests, and reports what expired so the server can close sockets and push
 * eventStreamTerminated.
 */
import { randomBytes } from 'node:crypto';
import type { Clock } from '../core/index.js';

/** The spec's listen key validity. */
export const LISTEN_KEY_VALIDITY_MS = 60 * 60_000;
/** Default and maximum listen token validity (24 hours). */
export const LISTEN_TOKEN_MAX_VALIDITY_MS = 24 * 60 * 60_000;

/** Which key path created a listen key: type 1 (/open/v1/user-data-stream) or type 3 (private-n). */
export type ListenKeyKind = 1 | 3;

interface ListenKeyState {
  readonly key: string;
  readonly account: string;
  readonly kind: ListenKeyKind;
  expiresAt: number;
}

interface TokenState {
  readonly token: string;
  readonly account: string;
  readonly expirationTime: number;
  /** Expired early by fault injection. */
  expired: boolean;
}

/** What one sweep found expired. */
export interface SweepResult {
  readonly listenKeys: readonly string[];
  readonly tokens: readonly string[];
}

/** Registry of listen keys and listen tokens. */
export class UserStreamRegistry {
  readonly #keys = new Map<string, ListenKeyState>();
  readonly #tokens = new Map<string, TokenState>();
  /** Keys closed by DELETE since the last sweep: their sockets must close too. */
  #closed: string[] = [];
  constructor(readonly clock: Clock) {}

  /**
   * Creates a listen key for `account`. Like the real exchange, an account that already has
   * an open key on the same path gets that key back with its validity extended.
   */
  createListenKey(account: string, kind: ListenKeyKind): string {
    const now = this.clock.now();
    for (const k of this.#keys.values()) {
      if (k.account === account && k.kind === kind && k.expiresAt > now) {
        k.expiresAt = now + LISTEN_KEY_VALIDITY_MS;
        return k.key;
      }
    }
    const key = randomBytes(32).toString('hex');
    this.#keys.set(key, { key, account, kind, expiresAt: now + LISTEN_KEY_VALIDITY_MS });
    return key;
  }

  /** Extends a key by 60 minutes; false when unknown, expired or someone else's. */
  keepAlive(key: string, account: string): boolean {
    const k = this.#valid(key);
    if (!k || k.account !== account) return false;
    k.expiresAt = this.clock.now() + LISTEN_KEY_VALIDITY_MS;
    return true;
  }

  /** Closes a key; false when unknown or someone else's. */
  close(key: string, account: string): boolean {
    const k = this.#valid(key);
    if (!k || k.account !== account) return false;
    this.#keys.delete(key);
    this.#closed.push(key);
    return true;
  }

  /** The account of an open key, or undefined. */
  listenKeyAccount(key: string): { account: string; kind: ListenKeyKind } | undefined {
    const k = this.#valid(key);
    return k ? { account: k.account, kind: k.kind } : undefined;
  }

  /** Expires a key now (fault injection); true when it existed. */
  expireListenKey(key: string): boolean {
    const k = this.#keys.get(key);
    if (!k) return false;
    k.expiresAt = this.clock.now();
    return true;
  }

  /** Every open key of an account (admin and tests). */
  listenKeysOf(account: string): string[] {
    const now = this.clock.now();
    return [...this.#keys.values()].filter((k) => k.account === account && k.expiresAt > now).map((k) => k.key);
  }

  /** Creates a listen token; undefined validity means the 24-hour default. Throws RangeError above the maximum. */
  createToken(account: string, validityMs?: number, now = this.clock.now()): { token: string; expirationTime: number } {
    const validity = validityMs ?? LISTEN_TOKEN_MAX_VALIDITY_MS;
    if (!Number.isSafeInteger(validity) || validity <= 0 || validity > LISTEN_TOKEN_MAX_VALIDITY_MS) throw new RangeError(`validity ${validity} is outside 1..${LISTEN_TOKEN_MAX_VALIDITY_MS} ms`);
    const token = randomBytes(24).toString('base64url');
    const expirationTime = now + validity;
    this.#tokens.set(token, { token, account, expirationTime, expired: false });
    return { token, expirationTime };
  }

  /** Every valid token of an account (admin and tests: a fault can then expire the one in use). */
  tokensOf(account: string): string[] {
    const now = this.clock.now();
    return [...this.#tokens.values()].filter((t) => t.account === account && !t.expired && t.expirationTime > now).map((t) => t.token);
  }

  /** A valid token's account and expiry, or undefined. */
  tokenInfo(token: string): { account: string; expirationTime: number } | undefined {
    const t = this.#tokens.get(token);
    if (!t || t.expired || t.expirationTime <= this.clock.now()) return undefined;
    return { account: t.account, expirationTime: t.expirationTime };
  }

  /** Expires a token now (fault injection); true when it existed. */
  expireToken(token: string): boolean {
    const t = this.#tokens.get(token);
    if (!t) return false;
    t.expired = true;
    return true;
  }

  /** Removes everything that has expired and reports it, with the keys closed since the last sweep. */
  sweep(): SweepResult {
    const now = this.clock.now();
    const listenKeys: string[] = this.#closed;
    this.#closed = [];
    const tokens: string[] = [];
    for (const k of this.#keys.values()) {
      if (k.expiresAt <= now) {
        listenKeys.push(k.key);
        this.#keys.delete(k.key);
      }
    }
    for (const t of this.#tokens.values()) {
      if (t.expired || t.expirationTime <= now) {
        tokens.push(t.token);
        this.#tokens.delete(t.token);
      }
    }
    return { listenKeys, tokens };
  }

  #valid(key: string): ListenKeyState | undefined {
    const k = this.#keys.get(key);
    return k && k.expiresAt > this.clock.now() ? k : undefined;
  }
}
