/**
 * Reconciliation of the tracker with the exchange: at start-up (after a stop or a crash), after a
 * user-stream reconnect, and continuously in the background loop, which settles UNKNOWN orders,
 * retries cancels that did not settle and checks live orders over REST (often where no stream
 * reports them, rarely where one does). Also keeps what the listings show that the bot did not
 * place, and the account's balances.
 */
import type { Balance, Order } from '../core/types.js';
import type { OrderRecord } from '../store/records.js';
import type { FillWatch } from './fills.js';
import { isTerminal } from './orderState.js';
import { errInfo, sleep, type RouterCore } from './routerCore.js';
import type { UntrackedOrder } from './routerOptions.js';

/** Start-up, on-demand and background reconciliation. */
export class Reconciler {
  readonly #core: RouterCore;
  readonly #fills: FillWatch;
  readonly #unstreamed: ReadonlySet<string>;
  /** When each live order was last checked over REST. */
  readonly #polledAt = new Map<string, number>();
  /** Symbols whose open-orders check is in flight (their orders are not due twice). */
  readonly #listing = new Set<string>();
  /** Open orders of each symbol that the exchange lists and this bot does not track, as last listed. */
  readonly #untracked = new Map<string, readonly UntrackedOrder[]>();
  #untrackedAll: readonly UntrackedOrder[] = [];
  #balances: readonly Balance[] = [];
  #ticking = false;

  constructor(core: RouterCore, fills: FillWatch) {
    this.#core = core;
    this.#fills = fills;
    this.#unstreamed = new Set(core.o.unstreamedSymbols ?? []);
  }

  /** Last balances fetched from the exchange. */
  get balances(): readonly Balance[] {
    return this.#balances;
  }

  /** Open orders on the account that this bot did not place, as last listed (see OrderRouter). */
  get untrackedOpenOrders(): readonly UntrackedOrder[] {
    return this.#untrackedAll;
  }

  /**
   * Reconciles open orders, every live tracked order, recent account trades and balances. Once
   * the router is stopping none is started, and one under way stops at its next step: shutdown
   * awaits it (it is among the calls {@link RouterCore.idle} waits for) and only then closes the
   * ledger, so nothing of it writes to a closed ledger. Cut short, it resolves: the next start
   * reconciles.
   */
  reconcile(reason: string): Promise<void> {
    const core = this.#core;
    if (core.stopped) {
      core.o.log.info({ reason }, 'reconciliation not started: the router is stopping (the next start reconciles)');
      return Promise.resolve();
    }
    const run = this.#reconcile(reason);
    core.track(run.catch(() => undefined));
    return run;
  }

  /** True (logged and journalled) when the router began stopping: the reconciliation ends there. */
  #cutShort(reason: string): boolean {
    const core = this.#core;
    if (!core.stopped) return false;
    core.o.log.info({ reason }, 'reconciliation cut short: the router is stopping (the next start reconciles)');
    core.o.ledger.journal(core.now(), 'reconcileStopped', { reason });
    return true;
  }

  async #reconcile(reason: string): Promise<void> {
    const core = this.#core;
    const { tracker, ledger, log } = core.o;
    core.stats.reconciliations++;
    const now = core.now();
    ledger.journal(now, 'reconcile', { reason });
    log.info({ reason }, 'reconciling with the exchange');
    const live = tracker.liveOrders();
    const symbols = new Set([...core.o.symbols, ...live.map((o) => o.symbol)]);
    const oldest = live.reduce((m, o) => Math.min(m, o.createdAt), now);
    const since = core.exchangeTime(Math.min(oldest - 60_000, now - (core.o.tradeLookbackMs ?? 86_400_000)));
    let untracked = 0;
    try {
      for (const symbol of symbols) {
        const open = await core.call(() => core.open.allOrders({ symbol, type: 'OPEN', limit: 1000 }));
        if (this.#cutShort(reason)) return;
        const seen = new Set<string>();
        for (const x of open) {
          seen.add(x.orderId);
          if (tracker.get(x.clientId) || tracker.byOrderId(x.orderId)) core.ops.applyRest(x, 'reconcile');
        }
        untracked += this.#noteUntracked(symbol, open);
        for (const o of tracker.liveOrders({ symbol })) {
          if (o.orderId !== undefined && seen.has(o.orderId)) continue;
          if (this.#cutShort(reason)) return;
          await core.serialised(o.clientId, () => core.ops.resolve(o.clientId, false));
        }
      }
      for (const symbol of symbols) {
        const trades = await core.call(() => core.open.accountTrades({ symbol, startTime: since, limit: 1000 }));
        if (this.#cutShort(reason)) return;
        for (const t of trades) tracker.applyTrade(t);
      }
      await this.refreshBalances();
      if (this.#cutShort(reason)) return;
      if (untracked > 0) log.warn({ untracked }, 'open orders on the account that this bot did not place (left alone)');
      ledger.journal(core.now(), 'reconciled', { reason, untracked, live: tracker.liveOrders().length });
    } catch (err) {
      log.error({ err: errInfo(err), reason }, 'reconciliation failed; will retry from the poll loop');
      ledger.journal(core.now(), 'reconcileFailed', { reason, err: errInfo(err) });
      throw err;
    }
  }

  /** Start-up recovery (see OrderRouter.recover). */
  async recover(waitMs: number): Promise<OrderRecord[]> {
    const core = this.#core;
    const tracker = core.tracker;
    const loaded = tracker.load();
    for (const o of loaded) {
      core.earlierRun.add(o.clientId);
      if (o.state !== 'PENDING') continue;
      if (o.sentAt === undefined) tracker.markRejected(o.clientId, 'NOT_SENT: the request never left the process', 'recover');
      else tracker.markUnknown(o.clientId, 'process stopped before the placement answer');
    }
    if (loaded.length > 0) core.o.log.info({ orders: loaded.length }, 'recovered live orders from the ledger');
    await this.reconcile('start-up');
    await this.#fills.fetchAllMissingFills(core.now() - (core.o.tradeLookbackMs ?? 86_400_000));
    const deadline = core.now() + waitMs;
    for (;;) {
      const unknown = tracker.liveOrders().filter((o) => o.state === 'UNKNOWN');
      if (unknown.length === 0 || core.now() >= deadline || core.stopped) return unknown;
      await sleep(Math.min(250, Math.max(1, deadline - core.now())));
      if (core.breaker.state === 'halfOpen') await core.probe();
      for (const o of unknown) {
        if (core.lookups.due(o.clientId, core.now())) await core.serialised(o.clientId, () => core.ops.resolve(o.clientId, false));
      }
    }
  }

  /**
   * Fetches balances from the exchange and records them (through `onBalances` when given). Not
   * once the router is stopping; one under way is awaited by shutdown, and an answer arriving
   * after the stop began is not recorded.
   */
  refreshBalances(): Promise<void> {
    if (this.#core.stopped) return Promise.resolve();
    const run = this.#refreshBalances();
    this.#core.track(run.catch(() => undefined));
    return run;
  }

  async #refreshBalances(): Promise<void> {
    const core = this.#core;
    const acct = await core.call(() => core.open.account());
    if (core.stopped) return;
    this.#balances = acct.balances;
    // A run's LiveBalances records what changed; without one, every read is recorded.
    if (core.o.onBalances) core.o.onBalances(acct.balances);
    else core.o.ledger.recordBalances(core.now(), 'rest', acct.balances);
  }

  /** One pass of the background loop (see OrderRouter.tick). */
  async tick(): Promise<void> {
    const core = this.#core;
    if (this.#ticking || core.stopped) return;
    this.#ticking = true;
    try {
      if (core.breaker.state === 'halfOpen') await core.probe();
      const now = core.now();
      // An update held for fills no stream or fetch brought (fillGate.ts) is published after a bound.
      core.tracker.releaseHeld({ maxAgeMs: 3 * (core.o.fillGapMs ?? 1000) });
      const cancelRetryMs = core.o.cancelRetryMs ?? 2000;
      const orderPollMs = core.o.orderPollMs ?? 2000;
      const streamedPollMs = core.o.streamedPollMs ?? 60_000;
      const due = new Map<string, OrderRecord[]>();
      const live = core.tracker.liveOrders();
      if (this.#polledAt.size > live.length) {
        // Orders closed since their last check (by the stream, a cancel) need no entry any more.
        const ids = new Set(live.map((o) => o.clientId));
        for (const id of this.#polledAt.keys()) if (!ids.has(id)) this.#polledAt.delete(id);
      }
      if (core.lookups.size > 0) core.lookups.keepOnly(new Set(live.filter((o) => o.state === 'UNKNOWN').map((o) => o.clientId)));
      if (core.lost.size > 0) core.lost.keepOnly(new Set(live.map((o) => o.clientId)));
      for (const o of live) {
        if (core.chains.has(o.clientId)) continue;
        if (o.state === 'UNKNOWN') {
          if (core.lookups.due(o.clientId, now)) core.enqueue(o.clientId, () => core.ops.resolve(o.clientId, true));
        }
        else if (core.cancelWanted.has(o.clientId) && now >= (core.cancelTried.get(o.clientId) ?? 0) + cancelRetryMs) {
          core.enqueue(o.clientId, () => core.ops.cancel(o.clientId));
        } else if (core.lost.isDue(o.clientId, now)) {
          // Answered "does not exist": looked up again on its own pace until the rule settles it.
          core.enqueue(o.clientId, () => this.#pollOrder(o.clientId, now));
        } else if (o.orderId !== undefined && !this.#listing.has(o.symbol)) {
          const period = this.#unstreamed.has(o.symbol) ? orderPollMs : streamedPollMs;
          if (period > 0 && now >= (this.#polledAt.get(o.clientId) ?? o.sentAt ?? 0) + period) {
            const list = due.get(o.symbol);
            // With the open API down, only the per-order path can still ask (the legacy interface).
            if (!core.breaker.closed) core.enqueue(o.clientId, () => this.#pollOrder(o.clientId, now));
            else if (list === undefined) due.set(o.symbol, [o]);
            else list.push(o);
          }
        }
      }
      for (const [symbol, orders] of due) core.track(this.#checkOpenOrders(symbol, orders, now));
    } finally {
      this.#ticking = false;
    }
  }

  /**
   * Checks the due live orders of one symbol against one open-orders query (GET /open/v1/orders
   * type OPEN) instead of one detail query each: a market maker with 200 resting orders spent 200
   * requests of its weight a minute on these checks (100 a second where no stream reports them).
   * Only an order the exchange no longer lists (filled, cancelled, expired, or beyond the page) or
   * lists with more executed than we hold is then queried on its own, and its fills fetched.
   * If the query fails, the orders wait for their next period, as a failed detail query did.
   */
  async #checkOpenOrders(symbol: string, orders: readonly OrderRecord[], now: number): Promise<void> {
    const core = this.#core;
    this.#listing.add(symbol);
    for (const o of orders) this.#polledAt.set(o.clientId, now);
    try {
      let listed: Order[];
      try {
        listed = await core.call(() => core.open.allOrders({ symbol, type: 'OPEN', limit: 1000 }));
      } catch (err) {
        core.o.log.warn({ symbol, err: errInfo(err) }, 'open-orders check failed; the next period tries again');
        return;
      }
      this.#noteUntracked(symbol, listed);
      const byId = new Map(listed.map((x) => [x.orderId, x]));
      for (const o of orders) {
        const x = o.orderId === undefined ? undefined : byId.get(o.orderId);
        const cur = core.tracker.get(o.clientId);
        if (!cur || isTerminal(cur.state)) continue;
        if (x === undefined || x.executedQty.gt(cur.cumQty)) core.enqueue(o.clientId, () => this.#pollOrder(o.clientId, now));
      }
    } finally {
      this.#listing.delete(symbol);
    }
  }

  /** Keeps the listed open orders of `symbol` that the tracker does not know; returns how many. */
  #noteUntracked(symbol: string, listed: readonly Order[]): number {
    const tracker = this.#core.tracker;
    const mine = (x: Order): boolean => tracker.get(x.clientId) !== undefined || tracker.byOrderId(x.orderId) !== undefined;
    const others = listed.filter((x) => !mine(x)).map((x) => ({ symbol, orderType: x.type, icebergQty: x.icebergQty }));
    if (others.length === 0 && !this.#untracked.has(symbol)) return 0;
    if (others.length === 0) this.#untracked.delete(symbol);
    else this.#untracked.set(symbol, others);
    this.#untrackedAll = [...this.#untracked.values()].flat();
    return others.length;
  }

  /** Refreshes a live order from REST, then records the fills its executed quantity shows. */
  async #pollOrder(clientId: string, now: number): Promise<void> {
    const core = this.#core;
    const o = core.tracker.get(clientId);
    if (!o || isTerminal(o.state)) return;
    this.#polledAt.set(clientId, now);
    await core.ops.refreshOrder(o);
    await this.#fills.fetchFills(clientId);
    if (isTerminal(core.tracker.get(clientId)?.state ?? 'CANCELED')) this.#polledAt.delete(clientId);
  }
}
