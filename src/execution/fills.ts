/**
 * Fills the router fetches itself. Fills normally arrive on the user stream; when a REST snapshot
 * shows an order executed beyond the fills recorded for it and they have not arrived after
 * `fillGapMs`, they are fetched by orderId, so a lost stream message never loses a fill.
 */
import type { Order } from '../core/types.js';
import type { OrderRecord } from '../store/records.js';
import { errInfo, type RouterCore } from './routerCore.js';

/** Watches executed quantities against recorded fills and fetches what is missing. */
export class FillWatch {
  readonly #core: RouterCore;
  readonly #gapTimers = new Map<string, NodeJS.Timeout>();

  constructor(core: RouterCore) {
    this.#core = core;
  }

  /**
   * Applies an order snapshot from REST, then checks that the fills recorded for it add up to
   * its executed quantity; if not, fetches them after `fillGapMs` unless the stream brought them.
   */
  applyRest(x: Order, source: string): void {
    const core = this.#core;
    core.tracker.applyOrder(x, source);
    const o = core.tracker.get(x.clientId) ?? core.tracker.byOrderId(x.orderId);
    if (o && this.#fillGap(o) && !this.#gapTimers.has(o.clientId)) {
      const clientId = o.clientId;
      const t = setTimeout(() => {
        this.#gapTimers.delete(clientId);
        if (!core.stopped) core.enqueue(clientId, () => this.fetchFills(clientId));
      }, core.o.fillGapMs ?? 1000);
      t.unref();
      this.#gapTimers.set(clientId, t);
    }
  }

  /** True when the order's executed quantity exceeds the fills recorded for it. */
  #fillGap(o: OrderRecord): boolean {
    if (o.orderId === undefined || o.cumQty.isZero()) return false;
    return o.cumQty.gt(this.#core.tracker.recordedQty(o.clientId));
  }

  /** Fetches the account trades of one order and records the missing fills. */
  async fetchFills(clientId: string): Promise<void> {
    const core = this.#core;
    const o = core.tracker.get(clientId);
    if (!o || o.orderId === undefined || !this.#fillGap(o)) return;
    const orderId = o.orderId;
    try {
      const trades = await core.call(() => core.open.accountTrades({ symbol: o.symbol, orderId, limit: 1000 }));
      for (const t of trades) core.tracker.applyTrade(t);
    } catch (err) {
      core.o.log.warn({ clientId, err: errInfo(err) }, 'fetching fills failed; the next reconciliation retries');
    } finally {
      // Its fills were asked for: an update still held for them waits no longer.
      core.tracker.releaseHeld({ clientId });
    }
  }

  /** Fetches missing fills of every order updated since `since` whose fills do not add up (shutdown, start-up). */
  async fetchAllMissingFills(since: number): Promise<void> {
    this.clearTimers();
    for (const o of this.#core.o.ledger.orders()) {
      if (o.updatedAt >= since && o.orderId !== undefined && this.#fillGap(o)) await this.#core.serialised(o.clientId, () => this.fetchFills(o.clientId));
    }
  }

  /** Drops the pending fetch timers (shutdown; a full fetch replaces them). */
  clearTimers(): void {
    for (const t of this.#gapTimers.values()) clearTimeout(t);
    this.#gapTimers.clear();
  }
}
