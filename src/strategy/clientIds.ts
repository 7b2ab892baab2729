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

/** Deterministic clientIds of one strategy: prefix-1, prefix-2, ... */
export class ClientIdSequence {
  readonly prefix: string;
  #seq = 0;
  readonly #used = new Set<string>();

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
    while (this.#used.has(id));
    this.#used.add(id);
    return id;
  }

  /** Registers a caller-chosen id; throws when invalid or already used in this run. */
  claim(id: string): string {
    checkClientId(id);
    if (this.#used.has(id)) throw new ValidationError('clientId', id, 'already used in this run');
    this.#used.add(id);
    return id;
  }
}
