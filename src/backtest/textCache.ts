/**
 * Texts of fill Decimals, remembered per Decimal object: a venue hands out the same Decimal for a
 * repeated price, size or fee (a Decimal never changes, so neither does its text).
 */
import type { Decimal } from '../core/decimal.js';

/**
 * Fill texts remembered. Small: an entry holds its Decimal, and one kept for thousands of fills
 * outlives young-generation collections and is copied and promoted, which cost more than the
 * texts it saves; repeats come close together.
 */
const TEXT_CACHE = 256;

/** x.toFixed() of recent Decimals; bounded: cleared when full. */
export class TextCache {
  readonly #texts = new Map<Decimal, string>();

  /** The text of `x`, from the cache when the same Decimal was seen lately. */
  text(x: Decimal): string {
    let t = this.#texts.get(x);
    if (t === undefined) {
      if (this.#texts.size >= TEXT_CACHE) this.#texts.clear();
      t = x.toFixed();
      this.#texts.set(x, t);
    }
    return t;
  }
}
