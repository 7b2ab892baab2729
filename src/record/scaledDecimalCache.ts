/**
 * Decimals of a reader's scaled integers (`v` x 10^-scale), built once each: equal, digits and
 * exponent, to what the wire text they spell gives, without spelling it. Trades repeat their price
 * (the last one is kept) and most of their quantities.
 *
 * The cache is direct-mapped: a value's slot is a hash of (v, scale), and a slot holds the last
 * value that landed there. Why not a Map emptied when full: the lookup (a hash-table probe per
 * trade) was ~1.5 % of a binary replay's CPU, and emptying the whole map every 4,096 distinct
 * values threw the hot ones away with the rest. On the 16x BTCUSDT recording (318k trades) the
 * quantities missed 20.8 % of the time with the map, 5.7 % with 8,192 slots and 3.0 % with 16,384
 * (each miss builds a Decimal).
 */
import type { Decimal } from '../core/decimal.js';
import { decimalOf } from '../core/decimalSum.js';
import type { DecimalTextCache } from '../core/decimalText.js';
import { scaledText } from './binary/format.js';

/** log2 of the slots (values never depend on it). */
const BITS = 14;
const SLOTS = 1 << BITS;

/** The largest integer decimalOfText reads itself (15 digits); beyond it, the text's own path. */
const MAX_DIGITS15 = 999_999_999_999_999;

/**
 * Slot of v x 10^-scale (v a safe integer, scale 0..22): the top bits of multiplicative hashes of
 * v's low 32 bits and of its high 21 bits beside the scale.
 */
function slotOf(v: number, scale: number): number {
  const lo = v | 0;
  const hi = (v / 4294967296) | 0;
  return (Math.imul(lo, 0x9e3779b1) ^ Math.imul(hi + (scale << 21), 0x85ebca6b)) >>> (32 - BITS);
}

/** Decimals by scaled integer and scale, in a direct-mapped table. */
export class ScaledDecimalCache {
  /** Per slot: its value's v (-1: empty), scale and Decimal. */
  readonly #keys = new Float64Array(SLOTS).fill(-1);
  readonly #scales = new Uint8Array(SLOTS);
  readonly #values: (Decimal | undefined)[] = new Array<Decimal | undefined>(SLOTS).fill(undefined);
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
      const slot = slotOf(v, scale);
      if (this.#keys[slot] === v && this.#scales[slot] === scale) d = this.#values[slot] as Decimal;
      else {
        d = decimalOf(v, 0 - scale);
        this.#keys[slot] = v;
        this.#scales[slot] = scale;
        this.#values[slot] = d;
      }
    } else d = texts.get(scaledText(v, scale));
    this.#lastV = v;
    this.#lastScale = scale;
    this.#last = d;
    return d;
  }
}
