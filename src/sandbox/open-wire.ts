/**
 * Wire shapes of the open API as the sandbox writes them: envelopes (`msg` vs `message`),
 * orders, order lists, account trades, wallet records. Field names and types follow the spec's
 * tables; where the spec says a type varies ("string in some responses"), the choice is noted.
 */
import type { ExchangeError} from '../core/index.js';
import { OrderSide, OrderStatus, OrderType, type SymbolInfo, TimeInForce, toWireFilters, type WireFilter } from '../core/index.js';
import type { AccountTrade } from '../core/types.js';
import type { OrderListView, SimOrder } from '../sim/index.js';
import type { Reply } from './http-host.js';
import type { DepositRecord, WithdrawRecord } from './exchange-state.js';

/** Which message field name a response uses. */
export type EnvelopeStyle = 'msg' | 'message' | 'newOrder';

/** A success envelope. */
export function okBody(data: unknown, style: EnvelopeStyle, now: number): Record<string, unknown> {
  if (style === 'msg') return data === undefined ? { code: 0, msg: 'success', timestamp: now } : { code: 0, msg: 'success', timestamp: now, data };
  if (style === 'message') return { code: 0, message: 'success', data, timestamp: now };
  return { code: 0, message: 'success', messageDetail: null, data, timestamp: now, success: true };
}

/** A failure envelope for an ExchangeError. */
export function errorReply(e: ExchangeError, style: EnvelopeStyle, now: number, headers?: Record<string, string>): Reply {
  const code = typeof e.exchangeCode === 'number' ? e.exchangeCode : -1000;
  const body =
    style === 'msg'
      ? { code, msg: e.exchangeMsg, timestamp: now }
      : style === 'message'
        ? { code, message: e.exchangeMsg, timestamp: now }
        : { code, message: e.exchangeMsg, messageDetail: e.exchangeMsg, data: null, timestamp: now, success: false };
  return { status: e.httpStatus, body, ...(headers ? { headers } : {}) };
}

/** orderId as a JSON number when it fits exactly, else as a string. */
function idValue(id: string): number | string {
  const n = Number(id);
  return Number.isSafeInteger(n) && String(n) === id ? n : id;
}

/**
 * An order. `variant` selects the extra fields each response carries: new order adds
 * borderId/borderListId (and, like the observed responses, a numeric stopPrice), detail adds
 * taxFee/taxFeeAsset. orderId is a number in every response the sandbox writes; the spec allows
 * strings, and clients must accept both.
 */
export function wireOrder(o: SimOrder, info: SymbolInfo, variant: 'new' | 'detail' | 'list' | 'cancel'): Record<string, unknown> {
  const listId = o.orderListId;
  const base: Record<string, unknown> = {
    orderId: idValue(o.orderId),
    bOrderId: o.bOrderId ?? o.orderId,
    bOrderListId: listId,
    clientId: o.clientId,
    symbol: o.symbol,
    symbolType: info.type,
    side: OrderSide[o.side],
    type: OrderType[o.type],
    price: o.price.toFixed(),
    origQty: o.origQty.toFixed(),
    origQuoteQty: o.origQuoteQty.toFixed(),
    executedQty: o.executedQty.toFixed(),
    executedPrice: o.executedPrice.toFixed(),
    executedQuoteQty: o.executedQuoteQty.toFixed(),
    timeInForce: TimeInForce[o.timeInForce ?? 'GTC'],
    stopPrice: o.stopPrice.toFixed(),
    icebergQty: o.icebergQty.toFixed(),
    status: OrderStatus[o.status],
    isWorking: o.isWorking === false ? 0 : 1,
    createTime: o.createTime,
  };
  if (o.expiryReason !== undefined && o.expiryReason !== 'NONE') base.expiryReason = o.expiryReason;
  if (variant === 'new') {
    base.borderId = base.bOrderId;
    base.borderListId = listId;
    base.stopPrice = Number(o.stopPrice.toFixed());
  }
  if (variant === 'detail') {
    base.taxFee = (o.taxFee ?? o.icebergQty.mul(0)).toFixed();
    base.taxFeeAsset = o.taxFeeAsset ?? '';
  }
  return base;
}

/** An OCO order list. */
export function wireOrderList(l: OrderListView, info: SymbolInfo): Record<string, unknown> {
  return {
    bOrderListId: String(l.orderListId),
    listClientId: l.listClientId,
    symbol: l.symbol,
    symbolType: info.type,
    contingencyType: l.contingencyType,
    listStatusType: l.listStatusType,
    listOrderStatus: l.listOrderStatus,
    createTime: l.createTime,
    orders: l.orders.map((o) => wireOrder(o, info, 'list')),
  };
}

/** One of the account's trades (all strings, flags 1/0, as the spec's table says). */
export function wireAccountTrade(t: AccountTrade): Record<string, unknown> {
  return {
    tradeId: t.tradeId,
    orderId: t.orderId,
    symbol: t.symbol,
    price: t.price.toFixed(),
    qty: t.qty.toFixed(),
    matchId: t.matchId ?? t.tradeId,
    quoteQty: t.quoteQty.toFixed(),
    commission: t.commission.toFixed(),
    commissionAsset: t.commissionAsset,
    isBuyer: t.isBuyer ? 1 : 0,
    isMaker: t.isMaker ? 1 : 0,
    isBestMatch: t.isBestMatch ? 1 : 0,
    taxAmount: (t.taxAmount ?? t.qty.mul(0)).toFixed(),
    taxRate: (t.taxRate ?? t.qty.mul(0)).toFixed(),
    time: String(t.time),
  };
}

/** A symbol of GET /open/v1/common/symbols (filters as configured, with applyToMarket present). */
export function wireSymbol(info: SymbolInfo, configured: readonly WireFilter[]): Record<string, unknown> {
  const filters = configured.length > 0 ? configured.map((f) => ({ applyToMarket: false, ...f })) : toWireFilters(info.filters);
  return {
    type: info.type,
    symbol: info.symbol,
    baseAsset: info.baseAsset,
    basePrecision: info.basePrecision,
    quoteAsset: info.quoteAsset,
    quotePrecision: info.quotePrecision,
    filters,
    orderTypes: info.orderTypes,
    defaultSelfTradePreventionMode: info.defaultSelfTradePreventionMode,
    allowedSelfTradePreventionModes: info.allowedSelfTradePreventionModes,
    icebergEnable: info.icebergEnable ? 1 : 0,
    ocoEnable: info.ocoEnable ? 1 : 0,
    spotTradingEnable: info.spotTradingEnable ? 1 : 0,
    marginTradingEnable: info.marginTradingEnable ? 1 : 0,
  };
}

/** A withdraw record. */
export function wireWithdraw(w: WithdrawRecord): Record<string, unknown> {
  return { id: w.id, clientId: w.clientId, asset: w.asset, network: w.network, address: w.address, amount: w.amount.toFixed(), fee: w.fee.toFixed(), txId: w.txId, status: w.status, createTime: w.createTime };
}

/** A deposit record (insertTime is a string, as the spec's table says). */
export function wireDeposit(d: DepositRecord): Record<string, unknown> {
  return { id: d.id, asset: d.asset, network: d.network, address: d.address, addressTag: d.addressTag, txId: d.txId, amount: d.amount.toFixed(), status: d.status, insertTime: String(d.insertTime) };
}
