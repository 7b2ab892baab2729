/**
 * The times of a strategy's placements over the last day, for order-rate limits: a ring of
 * numbers, so keeping a day costs no work per placement and a count is a binary search. A plain
 * array cut at its front moved every kept time on each placement once a day was full (a large
 * array cannot be trimmed in place), ~1 ms an order at 10 orders/s; and a count walked back over
 * every placement in its window.
 */

/** How far back placements are kept: rate limits look back far less than a day. */
export const PLACEMENTS_KEPT_MS = 86_400_000;

/** Placement times in order; see the file comment. */
export class PlacementTimes {
  #times = new Float64Array(1024);
  /** Index of the oldest kept time. */
  #head = 0;
  #size = 0;

  /** Number of times kept. */
  get size(): number {
    return this.#size;
  }

  /**
   * Records a placement at `now` and forgets those older than a day. A clock that stepped back is
   * taken as not having moved, so the times stay in order and a count never drops for it.
   */
  add(now: number): void {
    const last = this.#size > 0 ? this.#at(this.#size - 1) : -Infinity;
    const t = now > last ? now : last;
    while (this.#size > 0 && this.#at(0) < t - PLACEMENTS_KEPT_MS) {
      this.#head = (this.#head + 1) % this.#times.length;
      this.#size--;
    }
    if (this.#size === this.#times.length) this.#grow();
    this.#times[(this.#head + this.#size) % this.#times.length] = t;
    this.#size++;
  }

  /** Placements with a time after `t`. */
  countAfter(t: number): number {
    // The first kept time above t, by binary search over the ring in order.
    let lo = 0;
    let hi = this.#size;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.#at(mid) > t) hi = mid;
      else lo = mid + 1;
    }
    return this.#size - lo;
  }

  #at(i: number): number {
    return this.#times[(this.#head + i) % this.#times.length] as number;
  }

  #grow(): void {
    const next = new Float64Array(this.#times.length * 2);
    for (let i = 0; i < this.#size; i++) next[i] = this.#at(i);
    this.#times = next;
    this.#head = 0;
  }
}
