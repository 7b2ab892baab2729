/**
 * An in-memory exchange behind both router ports, for deterministic unit tests of the router:
 * one order store seen by the open and the legacy port (as on the real exchange), request
 * counters per interface, and the failures the router must survive (maintenance 503, a 5XX after
 * or before accepting an order). Fills are driven by the test. Integration tests use the sandbox.
 * It has no book: a MARKET buy by quoteOrderQty is accepted with that amount as origQuoteQty and
 * origQty 0, since the quantity the exchange takes (the one whose notional is closest to it, spec new
 * order rule 4) depends on the book; the sandbox's engine applies that rule (src/sim/README.md).
 */
import { Decimal, ZERO } from '../core/decimal.js';
import { ExchangeError, UnknownOutcomeError } from '../core/errors.js';
import type { ExecutionReportEvent } from '../core/marketEvents.js';
import type { AccountInfo, AccountTrade, Order } from '../core/types.js';
import type { OrderStatusName } from '../core/enums.js';
import type { LegacyCreate, LegacyOrderPort, LegacyOrderView, OpenOrderPort, RouterNewOrder } from './ports.js';

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** A failure to inject into the next new-order call. */
export type PlacementFault = 'acceptThen5xx' | 'rejectWith5xx' | 'refuse4xx';

/** A failure to inject into the next open-API cancel: lost on the way (timeout), or done but answered 5XX. */
export type CancelFault = 'timeout' | 'cancelThen5xx';

/** The fake exchange. */
export class FakeExchange {
  readonly orders = new Map<string, Mutable<Order>>();
  readonly trades: AccountTrade[] = [];
  readonly requests = { newOrder: 0, cancel: 0, legacyCreate: 0, legacyCancel: 0, reads: 0, legacyReads: 0 };
  /** Open-API calls by endpoint name (newOrder, orderDetail, allOrders, accountTrades, ...). */
  readonly calls = new Map<string, number>();
  /** Every executionReport the exchange would push on the user stream. */
  readonly reports: ExecutionReportEvent[] = [];
  /** When true, every open-API call answers 503 (maintenance). */
  maintenance = false;
  readonly placementFaults: PlacementFault[] = [];
  readonly cancelFaults: CancelFault[] = [];
  /** Faults of the next legacy creates. */
  readonly legacyFaults: 'acceptThen5xx'[] = [];
  /** When true, legacy cancels answer 5XX without cancelling. */
  legacyCancelDown = false;
  /** Status text legacy views show for live orders (the spec only shows `active`). */
  legacyLiveStatus = 'active';
  #nextId = 1000;
  #nextTrade = 1;
  #now: () => number;

  constructor(now: () => number) {
    this.#now = now;
  }

  /** The open-API port. */
  readonly open: OpenOrderPort = {
    newOrder: async (p: RouterNewOrder) => {
      this.requests.newOrder++;
      this.#gate('newOrder', p.clientId);
      const fault = this.placementFaults.shift();
      if (fault === 'rejectWith5xx') throw new UnknownOutcomeError('POST /open/v1/orders', 'HTTP 502', p.clientId, 502);
      if (fault === 'refuse4xx') throw new ExchangeError(400, -2010, 'Account has insufficient balance for requested action.', 'POST /open/v1/orders');
      const o = this.#accept(p.clientId, p.symbol, p.side, p.type, p.price ?? ZERO, p.quantity ?? ZERO, p.quoteOrderQty ?? ZERO);
      if (fault === 'acceptThen5xx') throw new UnknownOutcomeError('POST /open/v1/orders', 'HTTP 502', p.clientId, 502);
      return { ...o };
    },
    cancelOrder: async (p) => {
      this.requests.cancel++;
      this.#gate('cancelOrder', 'clientId' in p ? p.clientId : undefined);
      const fault = this.cancelFaults.shift();
      if (fault === 'timeout') throw new UnknownOutcomeError('POST /open/v1/orders/cancel', 'timeout after 10000 ms', 'clientId' in p ? p.clientId : undefined, undefined);
      const o = 'orderId' in p ? this.orders.get(p.orderId) : [...this.orders.values()].find((x) => x.clientId === p.clientId);
      if (!o) throw new ExchangeError(400, -2011, 'Unknown order sent.', 'POST /open/v1/orders/cancel');
      if (o.status !== 'NEW' && o.status !== 'PARTIALLY_FILLED') throw new ExchangeError(400, -2011, 'Order not open.', 'POST /open/v1/orders/cancel');
      this.#setStatus(o, 'CANCELED');
      if (fault === 'cancelThen5xx') throw new UnknownOutcomeError('POST /open/v1/orders/cancel', 'HTTP 502', undefined, 502);
      return { ...o };
    },
    orderDetail: async (p) => {
      this.requests.reads++;
      this.#gate('orderDetail');
      const o = this.orders.get(p.orderId);
      if (!o) throw new ExchangeError(400, -2013, 'Order does not exist.', 'GET /open/v1/orders/detail');
      return { ...o };
    },
    allOrders: async (p) => {
      this.requests.reads++;
      this.#gate('allOrders');
      return [...this.orders.values()]
        .filter((o) => o.symbol === p.symbol)
        .filter((o) => p.type !== 'OPEN' || o.status === 'NEW' || o.status === 'PARTIALLY_FILLED')
        .filter((o) => p.startTime === undefined || o.createTime >= p.startTime)
        .map((o) => ({ ...o }));
    },
    accountTrades: async (p) => {
      this.requests.reads++;
      this.#gate('accountTrades');
      return this.trades.filter((t) => t.symbol === p.symbol && (p.orderId === undefined || t.orderId === p.orderId) && (p.startTime === undefined || t.time >= p.startTime));
    },
    account: async (): Promise<AccountInfo> => {
      this.requests.reads++;
      this.#gate('account');
      return {
        makerCommission: ZERO,
        takerCommission: ZERO,
        buyerCommission: ZERO,
        sellerCommission: ZERO,
        canTrade: true,
        canWithdraw: true,
        canDeposit: true,
        balances: [{ asset: 'IDR', free: new Decimal('1000000'), locked: ZERO }],
      };
    },
    time: async () => {
      this.#gate('time');
      return this.#now();
    },
  };

  /** The legacy port (always up: maintenance is an open-API event). */
  readonly legacy: LegacyOrderPort = {
    createOrder: async (p: LegacyCreate) => {
      this.requests.legacyCreate++;
      const o = this.#accept(`legacy-${this.#nextId}`, p.symbol, p.side, p.type, p.price ?? ZERO, p.quantity);
      if (this.legacyFaults.shift() === 'acceptThen5xx') throw new UnknownOutcomeError('POST /v1/order', 'HTTP 502', undefined, 502);
      return { orderId: o.orderId };
    },
    cancelOrder: async (orderId) => {
      this.requests.legacyCancel++;
      // As the sandbox and the exchange: a cancel of an unknown or closed order is refused, not ignored.
      const o = this.orders.get(orderId);
      if (!o) throw new ExchangeError(400, 'order_not_found', `UNKNOWN_ORDER: order ${orderId} not found`, 'POST /v1/order');
      if (o.status !== 'NEW' && o.status !== 'PARTIALLY_FILLED') throw new ExchangeError(400, 'cancel_rejected', `ORDER_NOT_OPEN: order ${orderId} is ${o.status}`, 'POST /v1/order');
      this.#setStatus(o, 'CANCELED');
    },
    cancelOrders: async (ids) => {
      this.requests.legacyCancel++;
      if (this.legacyCancelDown) throw new UnknownOutcomeError('POST /v1/order', 'HTTP 502', undefined, 502);
      for (const id of ids) {
        const o = this.orders.get(id);
        if (o && (o.status === 'NEW' || o.status === 'PARTIALLY_FILLED')) this.#setStatus(o, 'CANCELED');
      }
    },
    cancelAllOrders: async () => {
      this.requests.legacyCancel++;
      for (const o of this.orders.values()) if (o.status === 'NEW' || o.status === 'PARTIALLY_FILLED') this.#setStatus(o, 'CANCELED');
    },
    activeOrders: async () => {
      this.requests.legacyReads++;
      return [...this.orders.values()].filter((o) => o.status === 'NEW' || o.status === 'PARTIALLY_FILLED')      .map((o) => legacyView(o, this.legacyLiveStatus));
    },
    getOrder: async (orderId) => {
      this.requests.legacyReads++;
      const o = this.orders.get(orderId);
      if (!o) throw new ExchangeError(404, undefined, 'order not found', 'GET /v1/order/get');
      return legacyView(o, this.legacyLiveStatus);
    },
  };

  /** Orders carrying a clientId (how duplicates are counted). */
  ordersWithClientId(clientId: string): Order[] {
    return [...this.orders.values()].filter((o) => o.clientId === clientId);
  }

  /** Fills `qty` of an order at its price (maker) and pushes the executionReport. */
  fill(orderId: string, qty: string): void {
    const o = this.orders.get(orderId);
    if (!o) throw new Error(`no order ${orderId}`);
    const q = new Decimal(qty);
    o.executedQty = o.executedQty.plus(q);
    o.executedQuoteQty = o.executedQuoteQty.plus(q.mul(o.price));
    o.status = o.executedQty.gte(o.origQty) ? 'FILLED' : 'PARTIALLY_FILLED';
    const tradeId = String(this.#nextTrade++);
    const commission = q.mul('0.001');
    this.trades.push({
      tradeId,
      orderId,
      symbol: o.symbol,
      price: o.price,
      qty: q,
      quoteQty: q.mul(o.price),
      commission,
      commissionAsset: 'BTC',
      isBuyer: o.side === 'BUY',
      isMaker: true,
      isBestMatch: true,
      time: this.#now(),
    });
    this.#report(o, 'TRADE', { tradeId, lastQty: q, lastPrice: o.price, commission });
  }

  #gate(endpoint: string, clientId?: string): void {
    this.calls.set(endpoint, (this.calls.get(endpoint) ?? 0) + 1);
    if (this.maintenance) {
      if (endpoint === 'newOrder' || endpoint === 'cancelOrder') throw new UnknownOutcomeError(endpoint, 'HTTP 503', clientId, 503);
      throw new ExchangeError(503, undefined, 'System maintenance', endpoint);
    }
  }

  #accept(clientId: string, symbol: string, side: Order['side'], type: Order['type'], price: Decimal, qty: Decimal, quoteQty: Decimal = ZERO): Order {
    const orderId = String(this.#nextId++);
    const o: Mutable<Order> = {
      orderId,
      clientId,
      symbol,
      side,
      type,
      status: 'NEW',
      price,
      origQty: qty,
      origQuoteQty: quoteQty,
      executedQty: ZERO,
      executedPrice: ZERO,
      executedQuoteQty: ZERO,
      stopPrice: ZERO,
      icebergQty: ZERO,
      createTime: this.#now(),
    };
    this.orders.set(orderId, o);
    this.#report(o, 'NEW', {});
    return o;
  }

  #setStatus(o: Mutable<Order>, s: OrderStatusName): void {
    o.status = s;
    this.#report(o, s === 'CANCELED' ? 'CANCELED' : 'NEW', {});
  }

  #report(o: Order, executionType: ExecutionReportEvent['executionType'], t: { tradeId?: string; lastQty?: Decimal; lastPrice?: Decimal; commission?: Decimal }): void {
    this.reports.push({
      type: 'executionReport',
      E: this.#now(),
      symbol: o.symbol,
      clientId: o.clientId,
      side: o.side,
      orderType: o.type,
      timeInForce: 'GTC',
      quantity: o.origQty,
      price: o.price,
      stopPrice: ZERO,
      icebergQty: ZERO,
      origClientId: '',
      executionType,
      status: o.status,
      rejectReason: 'NONE',
      orderId: o.orderId,
      lastQty: t.lastQty ?? ZERO,
      cumQty: o.executedQty,
      lastPrice: t.lastPrice ?? ZERO,
      commission: t.commission ?? ZERO,
      commissionAsset: t.commission ? 'BTC' : null,
      transactionTime: this.#now(),
      tradeId: t.tradeId,
      isWorking: true,
      isMaker: true,
      orderCreationTime: o.createTime,
      cumQuoteQty: o.executedQuoteQty,
      lastQuoteQty: (t.lastQty ?? ZERO).mul(t.lastPrice ?? ZERO),
      expiryReason: undefined,
    });
  }
}

function legacyView(o: Order, liveStatus: string): LegacyOrderView {
  return {
    orderId: o.orderId,
    symbol: o.symbol,
    side: o.side,
    type: o.type === 'MARKET' ? 'MARKET' : 'LIMIT',
    price: o.price,
    quantity: o.origQty,
    availableQuantity: o.origQty.minus(o.executedQty),
    status: o.status === 'FILLED' ? 'fulfilled' : o.status === 'CANCELED' ? 'cancelled' : liveStatus,
    time: o.createTime,
  };
}
