/**
 * Sliding-window record of order placements for the max-order-rate limit. Time is passed in
 * (virtual in backtests), so the window behaves the same in every mode.
 */

/** Placement times of one strategy, oldest first. */
export class OrderRateWindow {
  readonly #times: number[] = [];
  #head = 0;

  /** @param horizonMs the longest window ever asked for; older entries are dropped. */
  constructor(readonly horizonMs: number) {}

  /** Records a placement at time `t` (non-decreasing). */
  record(t: number): void {
    this.#times.push(t);
    this.#prune(t);
  }

  /** Placements with time > windowStart, i.e. in (now - windowMs, now] for windowStart = now - windowMs. */
  countSince(windowStart: number): number {
    const a = this.#times;
    let lo = this.#head;
    let hi = a.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((a[mid] as number) <= windowStart) lo = mid + 1;
      else hi = mid;
    }
    return a.length - lo;
  }

  #prune(now: number): void {
    const a = this.#times;
    const cut = now - this.horizonMs;
    while (this.#head < a.length && (a[this.#head] as number) <= cut) this.#head++;
    // Compact occasionally so the array does not grow for ever.
    if (this.#head > 1024 && this.#head * 2 > a.length) {
      a.splice(0, this.#head);
      this.#head = 0;
    }
  }
}
