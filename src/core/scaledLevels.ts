/**
 * One side of a depth update parsed once into scaled integers, so that a replay hands the same
 * parsed levels to every consumer (the local order book and the matching engine's replayed
 * liquidity) instead of each parsing the wire strings again.
 *
 * Values are integer counts of 10^-scale units held exactly in doubles (within the safe-integer
 * range); a consumer whose own scale differs converts exactly or refuses, it never rounds.
 * The arrays are reusable buffers: only the first `n` entries are meaningful, and a producer may
 * swap in larger arrays when a side has more levels than they hold.
 */
export interface ScaledLevels {
  /** Levels in use, in the order the update listed them. */
  n: number;
  /** Scaled prices; entry i belongs to quantity i. */
  prices: Float64Array;
  /** Scaled absolute quantities; 0 removes the level. */
  qtys: Float64Array;
  /** Fraction digits of the scaled prices. */
  priceScale: number;
  /** Fraction digits of the scaled quantities. */
  qtyScale: number;
}

/** Empty reusable levels with room for `capacity` entries. */
export function scaledLevels(capacity = 64): ScaledLevels {
  return { n: 0, prices: new Float64Array(capacity), qtys: new Float64Array(capacity), priceScale: 0, qtyScale: 0 };
}
