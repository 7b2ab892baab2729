/**
 * Client order ids. The spec allows 50 characters and the server does not check uniqueness, so
 * uniqueness is ours: `${strategy}-${seq}` within a run, plus a run tag when runs share a ledger
 * or an account (a restart must never reuse an id of an order that may still be live). Only
 * [A-Za-z0-9_-]: safe in query strings, form bodies, signatures and the ledger.
 */
import { ValidationError } from '../core/errors.js';

/** Longest clientId the spec accepts. */
export const CLIENT_ID_MAX = 50;
const CLIENT_ID_RE = /^[A-Za-z0-9_-]+$/;
const NAME_RE = /^[A-Za-z0-9_-]{1,16}$/;
const TAG_RE = /^[A-Za-z0-9]{0,12}$/;

/** Throws unless `id` is a valid clientId. */
export function checkClientId(id: string): void {
  if (id.length === 0 || id.length > CLIENT_ID_MAX || !CLIENT_ID_RE.test(id)) throw new ValidationError('clientId', id, `1 to ${CLIENT_ID_MAX} of [A-Za-z0-9_-]`);
}

/**
 * Deterministic clientIds of one strategy: prefix-1, prefix-2, ... Generated ids are unique by
 * construction, so only caller-chosen ids are remembered (memory stays flat however many orders a
 * run places): next() skips a claimed id, and claim() refuses a generated one by its number.
 */
export class ClientIdSequence {
  readonly prefix: string;
  #seq = 0;
  /** Caller-chosen ids of this run. */
  readonly #claimed = new Set<string>();

  /** @param runTag distinguishes runs (e.g. the ledger's run number in base 36); '' for none. */
  constructor(strategy: string, runTag = '') {
    if (!NAME_RE.test(strategy)) throw new ValidationError('strategy name', strategy, '1 to 16 of [A-Za-z0-9_-] (it prefixes clientIds)');
    if (!TAG_RE.test(runTag)) throw new ValidationError('runTag', runTag, 'up to 12 of [A-Za-z0-9]');
    this.prefix = runTag === '' ? strategy : `${strategy}-${runTag}`;
  }

  /** The next generated id (skipping any a caller chose explicitly). */
  next(): string {
    let id: string;
    do id = `${this.prefix}-${++this.#seq}`;
    while (this.#claimed.size > 0 && this.#claimed.has(id));
    return id;
  }

  /** Registers a caller-chosen id; throws when invalid or already used in this run. */
  claim(id: string): string {
    checkClientId(id);
    if (this.#claimed.has(id) || this.#generated(id)) throw new ValidationError('clientId', id, 'already used in this run');
    this.#claimed.add(id);
    return id;
  }

  /** Whether next() has already returned `id` (`${prefix}-${n}` with n in 1..seq, written canonically). */
  #generated(id: string): boolean {
    const p = this.prefix.length;
    if (id.length <= p + 1 || !id.startsWith(this.prefix) || id.charCodeAt(p) !== 45) return false;
    const digits = id.slice(p + 1);
    if (!/^[1-9][0-9]{0,15}$/.test(digits)) return false;
    return Number(digits) <= this.#seq;
  }
}
