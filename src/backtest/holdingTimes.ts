/**
 * How long round trips were held, as counts in fixed buckets (one pass, bounded whatever the
 * number of trips), split into winners and losers: a strategy that cuts winners short and lets
 * losers run shows it here.
 */

/** Upper bounds (ms, exclusive) of the buckets; the last bucket has none. */
const BOUNDS_MS = [60_000, 300_000, 900_000, 3_600_000, 14_400_000, 86_400_000, 604_800_000] as const;

/** Names of the buckets, in order (one more than BOUNDS_MS). */
export const HOLDING_BUCKETS = ['< 1 min', '1-5 min', '5-15 min', '15-60 min', '1-4 h', '4-24 h', '1-7 d', '>= 7 d'] as const;

/** One bucket of the holding-time distribution. */
export interface HoldingBucket {
  readonly label: (typeof HOLDING_BUCKETS)[number];
  /** Round trips held this long; winners and losers among them (the rest broke even). */
  readonly count: number;
  readonly wins: number;
  readonly losses: number;
}

/** Index of the bucket a holding time (ms) falls in. */
export function holdingBucket(ms: number): number {
  let i = 0;
  while (i < BOUNDS_MS.length && ms >= (BOUNDS_MS[i] as number)) i++;
  return i;
}

/** Counts round trips into the buckets one at a time. */
export class HoldingTimes {
  readonly #count = new Array<number>(HOLDING_BUCKETS.length).fill(0);
  readonly #wins = new Array<number>(HOLDING_BUCKETS.length).fill(0);
  readonly #losses = new Array<number>(HOLDING_BUCKETS.length).fill(0);

  /** One trip held `ms`, with the sign of its PnL. */
  add(ms: number, pnlSign: number): void {
    const i = holdingBucket(ms);
    this.#count[i] = (this.#count[i] as number) + 1;
    if (pnlSign > 0) this.#wins[i] = (this.#wins[i] as number) + 1;
    else if (pnlSign < 0) this.#losses[i] = (this.#losses[i] as number) + 1;
  }

  /** Every bucket, in order, empty ones included (tables line up across strategies). */
  buckets(): HoldingBucket[] {
    return HOLDING_BUCKETS.map((label, i) => ({ label, count: this.#count[i] as number, wins: this.#wins[i] as number, losses: this.#losses[i] as number }));
  }
}
