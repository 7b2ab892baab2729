/**
 * The router's parts asking each other for work ({@link RouterOps}, as `core.ops`), wired to the
 * functions that do it: each method names its implementation, so a reader following
 * `core.ops.place` from any part lands here and one step further in the code that sends.
 */
import type { Order } from '../core/types.js';
import type { OrderRecord } from '../store/records.js';
import type { FillWatch } from './fills.js';
import type { RouterCore, RouterOps } from './routerCore.js';
import { cancel, place } from './submission.js';
import { refreshOrder, resolve } from './unknownOutcome.js';

/** The one implementation of {@link RouterOps}. */
export class RouterOperations implements RouterOps {
  constructor(
    private readonly core: RouterCore,
    private readonly fills: FillWatch,
  ) {}

  /** submission.ts `place`: journals the request, then sends it over the open API (legacy /v1 while the circuit is open). */
  place(clientId: string): Promise<void> {
    return place(this.core, clientId);
  }

  /** submission.ts `cancel`: resolves an order that cannot be named yet, then cancels it. */
  cancel(clientId: string): Promise<void> {
    return cancel(this.core, clientId);
  }

  /** unknownOutcome.ts `resolve`: looks a PENDING or UNKNOWN order up by clientId; sends it again when it provably never arrived. */
  resolve(clientId: string, mayRetry: boolean): Promise<void> {
    return resolve(this.core, clientId, mayRetry);
  }

  /** unknownOutcome.ts `refreshOrder`: reads a known order over REST. */
  refreshOrder(order: OrderRecord): Promise<void> {
    return refreshOrder(this.core, order);
  }

  /** fills.ts `FillWatch.applyRest`: applies a REST snapshot of an order and watches its fills. */
  applyRest(x: Order, source: string): void {
    this.fills.applyRest(x, source);
  }
}
