/**
 * Decimals of a reader's scaled integers (`v` x 10^-scale), built once each: equal, digits and
 * exponent, to what the wire text they spell gives, without spelling it. Trades repeat their price
 * (the last one is kept) and most of their quantities (79 % of the BTCUSDT recording's trade
 * quantities are among the last 4,096 distinct ones).
 */
import type { Decimal } from '../core/decimal.js';
import { decimalOf } from '../core/decimalSum.js';
import type { DecimalTextCache } from '../core/decimalText.js';
import { scaledText } from './binary/format.js';

/** Entries per scale before a map starts again (values never depend on it). */
const LIMIT = 1 << 12;

/** The largest integer decimalOfText reads itself (15 digits); beyond it, the text's own path. */
const MAX_DIGITS15 = 999_999_999_999_999;

/** Decimals by scaled integer, one bounded map per scale (0 to 22). */
export class ScaledDecimalCache {
  readonly #maps: Map<number, Decimal>[] = [];
  #lastV = -1;
  #lastScale = -1;
  #last: Decimal | undefined;

  /**
   * The Decimal of `v` x 10^-scale for a safe integer v >= 0: `texts.get(scaledText(v, scale))`
   * (what a lazy trade's getter returns), which it is for zero, more than 15 digits or a scale
   * outside 0..22, and otherwise decimalOf of the same digits and point without the text.
   */
  get(v: number, scale: number, texts: DecimalTextCache): Decimal {
    if (v === this.#lastV && scale === this.#lastScale) return this.#last as Decimal;
    let d: Decimal | undefined;
    if (v > 0 && v <= MAX_DIGITS15 && scale >= 0 && scale <= 22 && Math.floor(v) === v) {
      const map = (this.#maps[scale] ??= new Map());
      d = map.get(v);
      if (d === undefined) {
        if (map.size >= LIMIT) map.clear();
        d = decimalOf(v, 0 - scale);
        map.set(v, d);
      }
    } else d = texts.get(scaledText(v, scale));
    this.#lastV = v;
    this.#lastScale = scale;
    this.#last = d;
    return d;
  }
}
