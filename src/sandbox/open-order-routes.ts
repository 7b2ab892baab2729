/**
 * The order routes of the open API: place (with its parameter parsing), query, cancel, list and
 * OCO. A refusal by the matching engine becomes the spec's NEW_ORDER_REJECTED or CANCEL_REJECTED.
 */
import {
  ExchangeError,
  type OrderSideName,
  OrderSideName as SideNames,
  OrderTypeName as TypeNames,
  type StpModeName,
  StpModeName as StpNames,
  TimeInForceName as TifNames,
  NEW_ORDER_STP_CODES,
  OrderStatus,
} from '../core/index.js';
import { ORDER_MANDATORY_PARAMS } from '../core/orderRules.js';
import type { NewOrderRequest, OrderQuery } from '../sim/index.js';
import type { SandboxSymbol } from './config.js';
import type { RequestContext } from './http-host.js';
import { must, one, symbolOf, type OpenRoute, type OpenRouteDeps } from './open-route-kit.js';
import { wireOrder, wireOrderList } from './open-wire.js';
import { ApiCode, badParam, optDecimal, optDirect, optEnum, optInt, optString, optTimeRange, reqDecimal, reqEnum, reqInt } from './params.js';

function stpOf(ctx: RequestContext): StpModeName | undefined {
  const v = optString(ctx, 'selfTradePreventionMode', 2);
  if (v === undefined) return undefined;
  if (!/^\d$/.test(v) || !NEW_ORDER_STP_CODES.has(Number(v))) badParam(ctx, ApiCode.INVALID_PARAMETER, `Invalid value ${v} for parameter 'selfTradePreventionMode'; allowed values are 0, 1, 2, 4, 5.`);
  return StpNames[v as keyof typeof StpNames];
}

function rejectOrder(ctx: RequestContext, code: number, reason: string, message: string): never {
  throw new ExchangeError(400, code, reason === 'NONE' ? message : `${reason}: ${message}`, ctx.path);
}

/** The new order request from the parameters: mandatory ones per type, then each optional one parsed once. */
function newOrderRequest(ctx: RequestContext, accountId: string, symbol: string): NewOrderRequest {
  const type = reqEnum(ctx, 'type', TypeNames);
  const side: OrderSideName = reqEnum(ctx, 'side', SideNames);
  // MARKET has no entry in the table; either amount is accepted here and a quoteOrderQty
  // sell is left to the matching engine to refuse.
  for (const p of ORDER_MANDATORY_PARAMS[type]) if (!ctx.params.get(p)) badParam(ctx, ApiCode.MANDATORY_PARAM, `Mandatory parameter '${p}' was not sent, was empty/null, or malformed.`);
  if (type === 'MARKET' && !ctx.params.get('quantity') && !ctx.params.get('quoteOrderQty')) {
    badParam(ctx, ApiCode.MANDATORY_PARAM, "Mandatory parameter 'quantity' or 'quoteOrderQty' was not sent, was empty/null, or malformed.");
  }
  const req: { -readonly [K in keyof NewOrderRequest]: NewOrderRequest[K] } = { accountId, symbol, side, type };
  const tif = optEnum(ctx, 'timeInForce', TifNames);
  if (tif) req.timeInForce = tif;
  const quantity = optDecimal(ctx, 'quantity');
  if (quantity) req.quantity = quantity;
  const quoteOrderQty = optDecimal(ctx, 'quoteOrderQty');
  if (quoteOrderQty) req.quoteOrderQty = quoteOrderQty;
  const price = optDecimal(ctx, 'price');
  if (price) req.price = price;
  const stopPrice = optDecimal(ctx, 'stopPrice');
  if (stopPrice) req.stopPrice = stopPrice;
  // icebergQty 0 means "not an iceberg", the same as leaving it out.
  const icebergQty = optDecimal(ctx, 'icebergQty', true);
  if (icebergQty && !icebergQty.isZero()) req.icebergQty = icebergQty;
  const clientId = optString(ctx, 'clientId');
  if (clientId) req.clientId = clientId;
  const stp = stpOf(ctx);
  if (stp) req.stpMode = stp;
  return req;
}

/** The query of GET /open/v1/orders: which orders (type 1 open, 2 history, -1 all), side, time range, fromId, direction, limit. */
function orderQuery(ctx: RequestContext): OrderQuery {
  const q: { -readonly [K in keyof OrderQuery]: OrderQuery[K] } = {};
  const type = optString(ctx, 'type', 2);
  if (type !== undefined) {
    if (type === '1') q.which = 'open';
    else if (type === '2') q.which = 'history';
    else if (type === '-1') q.which = 'all';
    else badParam(ctx, ApiCode.INVALID_PARAMETER, `Invalid value ${type} for parameter 'type'; allowed values are 1, 2, -1.`);
  }
  const side = optEnum(ctx, 'side', SideNames);
  if (side) q.side = side;
  optTimeRange(ctx, q);
  const fromId = optString(ctx, 'fromId', 20);
  if (fromId !== undefined) q.fromId = fromId;
  const direct = optDirect(ctx, fromId !== undefined);
  if (direct) q.direct = direct;
  q.limit = optInt(ctx, 'limit', 1, 1000) ?? 500;
  return q;
}

/** POST /open/v1/orders, GET /open/v1/orders/detail, POST /open/v1/orders/cancel, GET /open/v1/orders, POST /open/v1/orders/oco. */
export function orderRoutes(deps: OpenRouteDeps): OpenRoute[] {
  const { state } = deps;
  const sym = (ctx: RequestContext): SandboxSymbol => symbolOf(state, ctx);
  return [
    {
      method: 'POST',
      path: '/open/v1/orders',
      security: 'SIGNED',
      style: 'newOrder',
      orders: 1,
      weight: one,
      handle: ({ ctx, account }) => {
        const s = sym(ctx);
        const req = newOrderRequest(ctx, must(account).id, s.info.symbol);
        deps.orderFault('before', ctx.path);
        const res = state.exec((e, now) => e.placeOrder(req, now));
        if (!res.ok) rejectOrder(ctx, ApiCode.NEW_ORDER_REJECTED, res.reason, res.message);
        deps.orderFault('after', ctx.path);
        const answer = wireOrder(res.order, s.info, 'new');
        deps.rejectFault(res.order.accountId, res.order.orderId);
        return { data: answer };
      },
    },
    {
      method: 'GET',
      path: '/open/v1/orders/detail',
      security: 'SIGNED',
      style: 'message',
      weight: one,
      handle: ({ ctx, account }) => {
        const orderId = reqInt(ctx, 'orderId', 0);
        const clientId = optString(ctx, 'clientId');
        const o = state.engine.getOrder(must(account).id, { orderId, ...(clientId !== undefined ? { clientId } : {}) });
        if (!o) badParam(ctx, ApiCode.NO_SUCH_ORDER, 'Order does not exist.');
        const s = state.symbols.get(o.symbol) as SandboxSymbol;
        const answer = wireOrder(o, s.info, 'detail');
        if (deps.processingFault(o.orderId)) answer.status = OrderStatus.SYSTEM_PROCESSING;
        return { data: answer };
      },
    },
    {
      method: 'POST',
      path: '/open/v1/orders/cancel',
      security: 'SIGNED',
      style: 'message',
      weight: one,
      handle: ({ ctx, account }) => {
        const orderId = optInt(ctx, 'orderId', 0);
        const clientId = optString(ctx, 'clientId');
        if (orderId === undefined && clientId === undefined) badParam(ctx, ApiCode.MANDATORY_PARAM, "Mandatory parameter 'orderId' or 'clientId' was not sent, was empty/null, or malformed.");
        deps.cancelFault('before', ctx.path);
        const res = state.exec((e, now) => e.cancelOrder({ accountId: must(account).id, ...(orderId !== undefined ? { orderId } : {}), ...(clientId !== undefined ? { clientId } : {}) }, now));
        if (!res.ok) {
          if (res.reason === 'UNKNOWN_ORDER') badParam(ctx, ApiCode.NO_SUCH_ORDER, 'Order does not exist.');
          rejectOrder(ctx, ApiCode.CANCEL_REJECTED, res.reason, res.message);
        }
        deps.cancelFault('after', ctx.path);
        const s = state.symbols.get(res.order.symbol) as SandboxSymbol;
        return { data: wireOrder(res.order, s.info, 'cancel') };
      },
    },
    {
      method: 'GET',
      path: '/open/v1/orders',
      security: 'SIGNED',
      style: 'msg',
      weight: () => 5,
      handle: ({ ctx, account }) => {
        const s = sym(ctx);
        const q = orderQuery(ctx);
        const list = state.engine.allOrders(must(account).id, s.info.symbol, q);
        return {
          data: {
            list: list.map((o) => {
              const answer = wireOrder(o, s.info, 'list');
              if (deps.processingFault(o.orderId)) answer.status = OrderStatus.SYSTEM_PROCESSING;
              return answer;
            }),
          },
        };
      },
    },
    {
      method: 'POST',
      path: '/open/v1/orders/oco',
      security: 'SIGNED',
      style: 'message',
      orders: 2,
      weight: one,
      handle: ({ ctx, account }) => {
        const s = sym(ctx);
        const side = reqEnum(ctx, 'side', SideNames);
        const quantity = reqDecimal(ctx, 'quantity');
        const price = reqDecimal(ctx, 'price');
        const stopPrice = reqDecimal(ctx, 'stopPrice');
        const stopLimitPrice = reqDecimal(ctx, 'stopLimitPrice');
        const ids: Record<string, string> = {};
        for (const k of ['listClientId', 'limitClientId', 'stopClientId']) {
          const v = optString(ctx, k);
          if (v !== undefined) ids[k] = v;
        }
        deps.orderFault('before', ctx.path);
        const res = state.exec((e, now) => e.placeOco({ accountId: must(account).id, symbol: s.info.symbol, side, quantity, price, stopPrice, stopLimitPrice, ...ids }, now));
        if (!res.ok) rejectOrder(ctx, ApiCode.NEW_ORDER_REJECTED, res.reason, res.message);
        deps.orderFault('after', ctx.path);
        return { data: wireOrderList(res.list, s.info) };
      },
    },
  ];
}
