/**
 * Wrong-token throttling and refusal logging, per caller address. After a few free mistakes each
 * wrong token blocks the address for twice as long as the last (up to a ceiling); while blocked
 * its requests are answered 429 without the token being looked at, so guessing runs at one try
 * per block. A flood of refusals must not push the operator's log tail out: the first refusal
 * of an address in a window is logged as it happens, the rest are counted and logged as one
 * summary line per address when the window is flushed.
 */

/** Where refusals are logged (the console's pino logger). */
export interface RefusalLog {
  warn(o: object, msg: string): void;
}

/** Why a request was refused: a wrong token, no token, or sent while its address was blocked. */
export type RefusalKind = 'wrong' | 'missing' | 'throttled';

/** Tuning of {@link AuthThrottle}; the defaults suit a console one operator uses. */
export interface AuthThrottleOptions {
  /** Wrong tokens an address may send before it is blocked. */
  readonly freeFailures: number;
  /** The first block; each further wrong token doubles it. */
  readonly baseBlockMs: number;
  readonly maxBlockMs: number;
  /** An address quiet this long starts afresh. */
  readonly forgetAfterMs: number;
  /** Addresses remembered at most (the oldest are summarised and forgotten). */
  readonly maxAddresses: number;
  readonly now: () => number;
}

const DEFAULTS: AuthThrottleOptions = { freeFailures: 5, baseBlockMs: 1000, maxBlockMs: 60_000, forgetAfterMs: 600_000, maxAddresses: 4096, now: Date.now };

interface Entry {
  failures: number;
  blockedUntil: number;
  lastAt: number;
  /** Refusals counted since the last line logged for this address. */
  pending: Record<RefusalKind, number>;
  pendingSince: number;
  logged: boolean;
}

const none = (): Record<RefusalKind, number> => ({ wrong: 0, missing: 0, throttled: 0 });

/** Per-address wrong-token backoff and aggregated refusal logging. */
export class AuthThrottle {
  readonly #o: AuthThrottleOptions;
  readonly #log: RefusalLog;
  readonly #byAddress = new Map<string, Entry>();

  constructor(log: RefusalLog, options: Partial<AuthThrottleOptions> = {}) {
    this.#log = log;
    this.#o = { ...DEFAULTS, ...options };
  }

  /** Milliseconds the address must still wait (0: it may try). */
  blockedFor(address: string): number {
    const e = this.#byAddress.get(address);
    return e === undefined ? 0 : Math.max(0, e.blockedUntil - this.#o.now());
  }

  /** A refused request: counted, logged or summarised; a wrong token also lengthens the block. */
  refused(address: string, kind: RefusalKind, detail: Readonly<Record<string, unknown>>): void {
    const now = this.#o.now();
    const e = this.#entry(address, now);
    e.lastAt = now;
    if (kind === 'wrong') {
      e.failures++;
      const over = e.failures - this.#o.freeFailures;
      if (over > 0) e.blockedUntil = now + Math.min(this.#o.maxBlockMs, this.#o.baseBlockMs * 2 ** Math.min(over - 1, 30));
    }
    if (!e.logged) {
      e.logged = true;
      this.#log.warn({ from: address, ...detail, auth: kind }, 'console request refused: wrong or missing token');
      return;
    }
    e.pending[kind]++;
  }

  /** The right token: the address's mistakes are forgiven (its counted refusals are still summarised). */
  succeeded(address: string): void {
    const e = this.#byAddress.get(address);
    if (e === undefined) return;
    e.failures = 0;
    e.blockedUntil = 0;
  }

  /** Logs one summary line per address with refusals counted since its last line, and forgets quiet addresses. */
  flush(): void {
    const now = this.#o.now();
    for (const [address, e] of this.#byAddress) {
      this.#summarise(address, e, now);
      e.logged = false;
      if (now - e.lastAt >= this.#o.forgetAfterMs && e.blockedUntil <= now) this.#byAddress.delete(address);
    }
  }

  #summarise(address: string, e: Entry, now: number): void {
    const { wrong, missing, throttled } = e.pending;
    const refused = wrong + missing + throttled;
    if (refused > 0) this.#log.warn({ from: address, refused, wrong, missing, throttled, sec: Math.round((now - e.pendingSince) / 1000) }, `console requests refused: ${refused} more from ${address} (wrong token ${wrong}, no token ${missing}, while blocked ${throttled})`);
    e.pending = none();
    e.pendingSince = now;
  }

  #entry(address: string, now: number): Entry {
    let e = this.#byAddress.get(address);
    if (e !== undefined && now - e.lastAt >= this.#o.forgetAfterMs && e.blockedUntil <= now) {
      this.#summarise(address, e, now);
      this.#byAddress.delete(address);
      e = undefined;
    }
    if (e === undefined) {
      if (this.#byAddress.size >= this.#o.maxAddresses) this.#evictOldest(now);
      e = { failures: 0, blockedUntil: 0, lastAt: now, pending: none(), pendingSince: now, logged: false };
      this.#byAddress.set(address, e);
    }
    return e;
  }

  #evictOldest(now: number): void {
    const first = this.#byAddress.entries().next();
    if (first.done === true) return;
    this.#summarise(first.value[0], first.value[1], now);
    this.#byAddress.delete(first.value[0]);
  }
}
