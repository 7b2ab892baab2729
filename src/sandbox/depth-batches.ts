/**
 * Diff-depth batches of the sandbox streams, one for the 100 ms streams and one for the 1000 ms
 * ones: the engine's updates merged per interval (U of the first, u of the last, the latest
 * quantity per level). A gap fault drops the pending batches and the update, so the next message's
 * U lies beyond the previous u + 1: detectable by a client, never silently merged.
 */
import type { DepthDiffEvent } from '../sim/index.js';
import type { FaultController } from './faults.js';

/** One symbol's merged updates of an interval. */
export interface DepthBatch {
  U: number;
  u: number;
  readonly b: Map<string, string>;
  readonly a: Map<string, string>;
}

/** The pending batches per symbol of both speeds. */
export class DepthBatches {
  readonly #fast = new Map<string, DepthBatch>();
  readonly #slow = new Map<string, DepthBatch>();

  constructor(private readonly faults: FaultController) {}

  /** Merges one engine update into both speeds' batches (or drops them on a gap fault). */
  add(ev: DepthDiffEvent): void {
    if (this.faults.takeDepthGap(ev.symbol)) {
      this.#fast.delete(ev.symbol);
      this.#slow.delete(ev.symbol);
      return;
    }
    for (const batches of [this.#fast, this.#slow]) {
      let batch = batches.get(ev.symbol);
      if (!batch) batches.set(ev.symbol, (batch = { U: ev.U, u: ev.u, b: new Map(), a: new Map() }));
      batch.u = ev.u;
      for (const [p, q] of ev.b) batch.b.set(p, q);
      for (const [p, q] of ev.a) batch.a.set(p, q);
    }
  }

  /** Takes the pending batches of one speed (symbol, batch), leaving none. */
  drain(fast: boolean): [string, DepthBatch][] {
    const batches = fast ? this.#fast : this.#slow;
    const out = [...batches];
    batches.clear();
    return out;
  }
}
