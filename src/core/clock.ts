/** Clocks: wall time live and paper, virtual time in backtests, so nothing can see the future. */

/** A source of the current time in epoch ms. */
export interface Clock {
  now(): number;
}

/** Wall clock. */
export const systemClock: Clock = { now: () => Date.now() };

/** A clock moved only by the replay; refuses to go backwards. */
export class VirtualClock implements Clock {
  #t: number;
  constructor(start = 0) {
    this.#t = start;
  }
  /** Current virtual time. */
  now(): number {
    return this.#t;
  }
  /** Moves time forward to `t`; earlier values are ignored so time never runs backwards. */
  advanceTo(t: number): void {
    if (t > this.#t) this.#t = t;
  }
}
