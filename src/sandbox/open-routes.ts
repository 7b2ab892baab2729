/**
 * Routes of the open API on the main host ({base_url}): /open/v1 common, order, account,
 * wallet and listen-key endpoints, and /v1/common/system-config. Handlers return the `data`
 * of the envelope; the host wraps it (see open-host.ts).
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
import type { NewOrderRequest, OrderQuery, TradeQuery } from '../sim/index.js';
import type { SandboxAccount, SandboxSymbol } from './config.js';
import { depositAddress, type ExchangeState } from './exchange-state.js';
import type { RequestContext } from './http-host.js';
import type { Security } from './open-auth.js';
import { type EnvelopeStyle, wireAccountTrade, wireDeposit, wireOrder, wireOrderList, wireSymbol, wireWithdraw } from './open-wire.js';
import { ApiCode, badParam, optDecimal, optDirect, optEnum, optInt, optString, optTimeRange, reqDecimal, reqEnum, reqInt, reqString } from './params.js';
import type { UserStreamRegistry } from './user-streams.js';
import { randomUUID } from 'node:crypto';

/** What a route handler gets. */
export interface RouteInput {
  readonly ctx: RequestContext;
  readonly account: SandboxAccount | undefined;
  readonly now: number;
}

/** A handler result: envelope data, or a complete body that carries no envelope. */
export type RouteResult = { readonly data: unknown } | { readonly bare: unknown };

/** One open API route. */
export interface OpenRoute {
  readonly method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  readonly path: string;
  readonly security: Security;
  readonly style: EnvelopeStyle;
  /** Counts against the account's order rate and carries X-MBX-ORDER-COUNT-* when it succeeds. */
  readonly orders?: number;
  weight(ctx: RequestContext): number;
  handle(input: RouteInput): RouteResult;
}

/** Dependencies of the main-host routes. */
export interface OpenRouteDeps {
  readonly state: ExchangeState;
  readonly streams: UserStreamRegistry;
  /** ws_api_url, for /v1/common/system-config. */
  wsApiUrl(): string;
  /** Fault hook around order placement: throws the 5XX when armed. */
  orderFault(when: 'before' | 'after', path: string): void;
  /** Fault hook around a cancel: throws the 5XX or the connection drop when armed. */
  cancelFault(when: 'before' | 'after', path: string): void;
  /** Fault hook after a placement was answered: rejects the accepted order when armed. */
  rejectFault(accountId: string, orderId: string): void;
  /** Fault hook on an order query: true when the answer must say SYSTEM_PROCESSING. */
  processingFault(orderId: string): boolean;
}

const one = (): number => 1;

function symbolOf(state: ExchangeState, ctx: RequestContext): SandboxSymbol {
  const name = reqString(ctx, 'symbol');
  const s = state.symbols.get(name);
  if (!s) badParam(ctx, ApiCode.BAD_SYMBOL, 'Invalid symbol.');
  return s;
}

function must(account: SandboxAccount | undefined): SandboxAccount {
  if (!account) throw new Error('route declared a security type but got no account');
  return account;
}

function stpOf(ctx: RequestContext): StpModeName | undefined {
  const v = optString(ctx, 'selfTradePreventionMode', 2);
  if (v === undefined) return undefined;
  if (!/^\d$/.test(v) || !NEW_ORDER_STP_CODES.has(Number(v))) badParam(ctx, ApiCode.INVALID_PARAMETER, `Invalid value ${v} for parameter 'selfTradePreventionMode'; allowed values are 0, 1, 2, 4, 5.`);
  return StpNames[v as keyof typeof StpNames];
}

/** The shared filters of withdraw and deposit history: account, asset, status, fromId, time range. */
function walletFilter(ctx: RequestContext, accountId: string, maxStatus: number): (r: { accountId: string; asset: string; status: number; id: number }, time: number) => boolean {
  const asset = optString(ctx, 'asset');
  const status = optInt(ctx, 'status', 0, maxStatus);
  const fromId = optInt(ctx, 'fromId', 0);
  const startTime = optInt(ctx, 'startTime', 0);
  const endTime = optInt(ctx, 'endTime', 0);
  return (r, time) =>
    r.accountId === accountId &&
    (asset === undefined || r.asset === asset) &&
    (status === undefined || r.status === status) &&
    (fromId === undefined || r.id >= fromId) &&
    (startTime === undefined || time >= startTime) &&
    (endTime === undefined || time <= endTime);
}

function rejectOrder(ctx: RequestContext, code: number, reason: string, message: string): never {
  throw new ExchangeError(400, code, reason === 'NONE' ? message : `${reason}: ${message}`, ctx.path);
}

/** Builds the main-host route table. */
export function openRoutes(deps: OpenRouteDeps): OpenRoute[] {
  const { state, streams } = deps;
  const sym = (ctx: RequestContext): SandboxSymbol => symbolOf(state, ctx);
  // The listen-key endpoints are "unlabelled" in the spec (which would read as NONE), but a key
  // must belong to an account, so they need a valid X-MBX-APIKEY (security API_KEY), as on the
  // exchange family this API comes from. Weight 1 each, as the spec says.
  const listenKeyRoutes = (path: string, kind: 1 | 3): OpenRoute[] => [
    { method: 'POST', path, security: 'API_KEY', style: 'msg', weight: one, handle: ({ account }) => ({ data: streams.createListenKey(must(account).id, kind) }) },
    {
      method: 'PUT',
      path,
      security: 'API_KEY',
      style: 'msg',
      weight: one,
      handle: ({ ctx, account }) => {
        if (!streams.keepAlive(reqString(ctx, 'listenKey', 64), must(account).id)) badParam(ctx, ApiCode.INVALID_LISTEN_KEY, 'This listenKey does not exist.');
        return { bare: {} };
      },
    },
    {
      method: 'DELETE',
      path,
      security: 'API_KEY',
      style: 'msg',
      weight: one,
      handle: ({ ctx, account }) => {
        if (!streams.close(reqString(ctx, 'listenKey', 64), must(account).id)) badParam(ctx, ApiCode.INVALID_LISTEN_KEY, 'This listenKey does not exist.');
        return { bare: {} };
      },
    },
  ];

  return [
    { method: 'GET', path: '/open/v1/common/time', security: 'NONE', style: 'msg', weight: one, handle: () => ({ data: undefined }) },
    {
      method: 'GET',
      path: '/open/v1/common/symbols',
      security: 'NONE',
      style: 'msg',
      weight: one,
      handle: () => ({ data: { list: [...state.symbols.values()].map((s) => wireSymbol(s.info, s.wireFilters)) } }),
    },
    {
      // The spec names the fields only by suffix (a vendor word comes first); ours is "sandbox".
      method: 'GET',
      path: '/v1/common/system-config',
      security: 'NONE',
      style: 'msg',
      weight: one,
      handle: () => ({ data: { sandboxWssApiBaseUrl: deps.wsApiUrl(), sandboxWssApiBaseUrlList: [deps.wsApiUrl()] } }),
    },
    {
      method: 'POST',
      path: '/open/v1/orders',
      security: 'SIGNED',
      style: 'newOrder',
      orders: 1,
      weight: one,
      handle: ({ ctx, account }) => {
        const s = sym(ctx);
        const type = reqEnum(ctx, 'type', TypeNames);
        const side: OrderSideName = reqEnum(ctx, 'side', SideNames);
        // MARKET has no entry in the table; either amount is accepted here and a quoteOrderQty
        // sell is left to the matching engine to refuse.
        for (const p of ORDER_MANDATORY_PARAMS[type]) if (!ctx.params.get(p)) badParam(ctx, ApiCode.MANDATORY_PARAM, `Mandatory parameter '${p}' was not sent, was empty/null, or malformed.`);
        if (type === 'MARKET' && !ctx.params.get('quantity') && !ctx.params.get('quoteOrderQty')) {
          badParam(ctx, ApiCode.MANDATORY_PARAM, "Mandatory parameter 'quantity' or 'quoteOrderQty' was not sent, was empty/null, or malformed.");
        }
        const req: { -readonly [K in keyof NewOrderRequest]: NewOrderRequest[K] } = { accountId: must(account).id, symbol: s.info.symbol, side, type };
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
    {
      method: 'GET',
      path: '/open/v1/account/spot',
      security: 'SIGNED',
      style: 'msg',
      weight: () => 5,
      handle: ({ account }) => {
        const a = must(account);
        return {
          data: {
            makerCommission: a.makerCommission.toFixed(),
            takerCommission: a.takerCommission.toFixed(),
            buyerCommission: '0',
            sellerCommission: '0',
            canTrade: a.canTrade ? 1 : 0,
            canWithdraw: a.canWithdraw ? 1 : 0,
            canDeposit: a.canDeposit ? 1 : 0,
            accountAssets: state.engine.balances(a.id).map((b) => ({ asset: b.asset, free: b.free.toFixed(), locked: b.locked.toFixed() })),
          },
        };
      },
    },
    {
      method: 'GET',
      path: '/open/v1/account/spot/asset',
      security: 'SIGNED',
      style: 'msg',
      weight: one,
      handle: ({ ctx, account }) => {
        const asset = reqString(ctx, 'asset');
        const b = state.engine.balances(must(account).id).find((x) => x.asset === asset);
        return { data: { asset, free: b ? b.free.toFixed() : '0', locked: b ? b.locked.toFixed() : '0' } };
      },
    },
    {
      method: 'GET',
      path: '/open/v1/orders/trades',
      security: 'SIGNED',
      style: 'msg',
      weight: () => 5,
      handle: ({ ctx, account }) => {
        const s = sym(ctx);
        const q: { -readonly [K in keyof TradeQuery]: TradeQuery[K] } = {};
        const orderId = optString(ctx, 'orderId', 20);
        if (orderId !== undefined) q.orderId = orderId;
        optTimeRange(ctx, q);
        const fromId = optInt(ctx, 'fromId', 0);
        if (fromId !== undefined) q.fromId = fromId;
        const direct = optDirect(ctx, fromId !== undefined);
        if (direct) q.direct = direct;
        q.limit = optInt(ctx, 'limit', 1, 1000) ?? 500;
        optInt(ctx, 'rebateStatus');
        return { data: { list: state.engine.accountTrades(must(account).id, s.info.symbol, q).map(wireAccountTrade) } };
      },
    },
    {
      method: 'POST',
      path: '/open/v1/withdraws',
      security: 'SIGNED',
      style: 'msg',
      weight: one,
      handle: ({ ctx, account }) => {
        const a = must(account);
        const asset = reqString(ctx, 'asset');
        const clientId = optString(ctx, 'clientId') ?? randomUUID().replace(/-/g, '');
        const network = optString(ctx, 'network') ?? asset;
        const address = reqString(ctx, 'address', 128);
        const addressTag = optString(ctx, 'addressTag', 64) ?? '';
        if (!ctx.params.get('amount')) badParam(ctx, ApiCode.MANDATORY_PARAM, "Mandatory parameter 'amount' was not sent, was empty/null, or malformed.");
        const amount = optDecimal(ctx, 'amount') as NonNullable<ReturnType<typeof optDecimal>>;
        if (!a.canWithdraw) badParam(ctx, ApiCode.REJECTED_API_KEY, 'Withdrawals are disabled for this account.');
        const rec = state.withdraw(a.id, { asset, network, address, addressTag, amount, clientId });
        if (typeof rec === 'string') badParam(ctx, ApiCode.INVALID_PARAMETER, `Withdrawal refused: ${rec}`);
        return { data: { withdrawId: String(rec.id) } };
      },
    },
    {
      method: 'GET',
      path: '/open/v1/withdraws',
      security: 'SIGNED',
      style: 'msg',
      weight: one,
      handle: ({ ctx, account }) => {
        const keep = walletFilter(ctx, must(account).id, 99);
        const list = state.withdraws.filter((w) => keep(w, w.createTime));
        return { data: { list: list.map(wireWithdraw) } };
      },
    },
    {
      method: 'GET',
      path: '/open/v1/deposits',
      security: 'SIGNED',
      style: 'msg',
      weight: one,
      handle: ({ ctx, account }) => {
        const keep = walletFilter(ctx, must(account).id, 1);
        const list = state.deposits.filter((d) => keep(d, d.insertTime));
        return { data: { list: list.map(wireDeposit) } };
      },
    },
    {
      method: 'GET',
      path: '/open/v1/deposits/address',
      security: 'SIGNED',
      style: 'msg',
      weight: one,
      handle: ({ ctx, account }) => {
        const asset = reqString(ctx, 'asset');
        const network = reqString(ctx, 'network');
        return { data: { address: depositAddress(must(account).id, asset, network), addressTag: '', asset } };
      },
    },
    ...listenKeyRoutes('/open/v1/user-data-stream', 1),
    ...listenKeyRoutes('/open/v1/private-n/user-data-stream', 3),
    {
      method: 'POST',
      path: '/open/v1/user-listen-token',
      security: 'SIGNED',
      style: 'msg',
      weight: one,
      handle: ({ ctx, account, now }) => {
        const validity = optInt(ctx, 'validity');
        try {
          return { data: streams.createToken(must(account).id, validity, now) };
        } catch (e) {
          return badParam(ctx, ApiCode.INVALID_PARAMETER, `Invalid value for parameter 'validity': ${e instanceof Error ? e.message : String(e)}.`);
        }
      },
    },
  ];
}
