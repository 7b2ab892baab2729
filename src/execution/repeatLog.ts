/**
 * Log lines that repeat for one order (a refused cancel tried every 2 s, a lookup that keeps
 * failing) are written once, then at most once per period with the count of the ones left out:
 * an order stuck for a minute wrote 102 lines, burying everything else in the log.
 */
import type { ExecLogger } from './log.js';

/** Which level a repeated line is written at. */
export type RepeatLevel = 'info' | 'warn' | 'error';

interface Seen {
  lastAt: number;
  skipped: number;
}

/** A rate limit per key (an order and a message) over one logger. */
export class RepeatLog {
  readonly #log: ExecLogger;
  readonly #now: () => number;
  readonly #everyMs: number;
  readonly #seen = new Map<string, Seen>();

  constructor(log: ExecLogger, now: () => number, everyMs = 60_000) {
    this.#log = log;
    this.#now = now;
    this.#everyMs = everyMs;
  }

  /** Writes the line unless the same key was written less than a period ago (then counts it). */
  write(level: RepeatLevel, key: string, obj: object, msg: string): void {
    const now = this.#now();
    const s = this.#seen.get(key);
    if (s !== undefined && now - s.lastAt < this.#everyMs) {
      s.skipped++;
      return;
    }
    this.#log[level](s !== undefined && s.skipped > 0 ? { ...obj, repeated: s.skipped } : obj, msg);
    this.#seen.set(key, { lastAt: now, skipped: 0 });
  }

  /** Forgets every key of one order (it closed): a later problem is logged at once. */
  forget(clientId: string): void {
    for (const k of [...this.#seen.keys()]) if (k.startsWith(`${clientId} `)) this.#seen.delete(k);
  }
}
