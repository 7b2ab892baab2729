/**
 * Nonces for the legacy /v1 interface: every request's nonce must be larger than the last one
 * the exchange saw for this key, across calls and across process restarts.
 *
 * Scheme: nonce = max(now_ms * 1000, last + 1), i.e. microseconds-ish of wall time.
 *
 * - {@link TimeNonceStore} (the default) keeps `last` in memory only. After a restart `last`
 *   is lost, and monotonicity rests on two facts: (1) the wall clock did not step backwards
 *   across the restart, and (2) the previous process never ran more than the restart gap
 *   ahead of the clock. Issuing a nonce advances the counter by 1 while the clock advances
 *   by 1000 per ms, so the counter can only outrun the clock by issuing more than 1000 nonces
 *   per ms (one million per second) sustained; the interface allows 60 requests per endpoint
 *   per minute (12 endpoints: 12 per second). Fact (1) is not provable on a machine whose
 *   clock may be corrected by NTP, so the default is only "monotonic unless the clock steps
 *   back"; use the file store whenever restarts matter.
 * - {@link FileNonceStore} persists `last` in a file (configurable path) before the nonce is
 *   used, and takes max(time-based, persisted + 1). It stays monotonic even when the clock
 *   steps back, and is what the CLI and live runs use.
 *
 * Values stay below 2^53 (now_ms * 1000 is about 1.8e15 today), so JSON carries them exactly.
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { ParseError, StateError, systemClock, type Clock } from '../../core/index.js';

/** Source of strictly increasing nonces. */
export interface NonceStore {
  /** The next nonce, strictly larger than every nonce returned before (by this store and its persisted predecessors). */
  next(): number;
}

/** In-memory, time-based nonces; monotonic across restarts only while the wall clock never steps back (see file comment). */
export class TimeNonceStore implements NonceStore {
  #last: number;
  constructor(
    private readonly clock: Clock = systemClock,
    initial = 0,
  ) {
    this.#last = initial;
  }

  next(): number {
    const n = Math.max(this.clock.now() * 1000, this.#last + 1);
    if (!Number.isSafeInteger(n)) throw new StateError(`nonce ${n} exceeds the safe integer range`);
    this.#last = n;
    return n;
  }
}

/**
 * File-backed nonces: the last value is written (write to a temporary file, then rename, so a
 * crash never leaves a truncated file) before it is returned. One process per file: two
 * processes sharing a key must use different keys or one store.
 */
export class FileNonceStore implements NonceStore {
  readonly #inner: TimeNonceStore;

  constructor(
    readonly path: string,
    clock: Clock = systemClock,
  ) {
    this.#inner = new TimeNonceStore(clock, readLast(path));
  }

  next(): number {
    const n = this.#inner.next();
    mkdirSync(dirname(this.path), { recursive: true });
    const tmp = `${this.path}.${process.pid}.tmp`;
    writeFileSync(tmp, `${n}\n`, { mode: 0o600 });
    renameSync(tmp, this.path);
    return n;
  }
}

function readLast(path: string): number {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    if ((e as { code?: unknown }).code === 'ENOENT') return 0;
    throw e;
  }
  const t = text.trim();
  // A corrupt file must stop us: guessing a low value could reuse a nonce.
  if (!/^\d+$/.test(t) || !Number.isSafeInteger(Number(t))) throw new ParseError(`nonce file ${path}`, t, 'expected one non-negative integer');
  return Number(t);
}
