/**
 * The legacy /v1 interface ({legacy_base_url}): twelve endpoints, header signing
 * (X-TC-APIKEY, X-TC-PAYLOAD = base64(JSON(params)), X-TC-SIGNATURE = hex HMAC-SHA384 of the
 * payload string), strictly increasing nonces per key, 401 for a wrong key, the
 * success/message_code/data envelope, the un-enveloped order book, and 60 requests per IP per
 * endpoint per minute answered with `{"err_str":"limit exceeded"}`. Orders go to the same engine
 * and account as the open API.
 *
 * Decisions where the spec says "not shown", written down here:
 * - X-TC-SIGNATURE must be lowercase hex, as the spec defines it; an upper-case digest is refused
 *   with 401 (the open API's case-insensitive comparison is stated for that interface only).
 * - legacy pairs are the configured symbols spelled base+quote in lower case (btcidr for BTC_IDR);
 *   `currency` in create-order and /v1/stp is the base asset of the <CUR>_IDR symbol.
 * - bodies of create, cancel-one and cancel-selected: envelopes with message codes
 *   create_order_success (data = the active order entry), cancel_order_success (data = the order
 *   detail) and cancel_selected_order_success (data = array of canceled order ids).
 * - failures: `{"success":false,"message_code":"<reason>","data":"<human text>"}` with 400 for a bad
 *   request (invalid_nonce, invalid_parameter, order_rejected, order_not_found), 401 for a wrong key
 *   or signature (invalid_api_key, invalid_signature), 404/405 for unknown paths and methods,
 *   406 when the client refuses JSON, 503 in maintenance.
 * - the order book pages hold 100 levels a side; `page` starts at 0.
 * - numbers on this interface are JSON numbers, as the spec's tables say; they are formatting only,
 *   never used to decide anything.
 * - order detail `status`: active (NEW, PARTIALLY_FILLED), fulfilled (FILLED), cancelled (others).
 */
import { createHash } from 'node:crypto';
import { type Clock, Decimal, ExchangeError, LEGACY_STP_CURRENCIES, parseDecimal, verifyLegacy } from '../core/index.js';
import type { SimOrder } from '../sim/index.js';
import type { SandboxAccount, SandboxSymbol } from './config.js';
import type { ExchangeState } from './exchange-state.js';
import type { FaultController } from './faults.js';
import { DropConnection, type HostHandler, type Reply, type RequestContext } from './http-host.js';
import type { Waiter } from './open-host.js';
import type { LegacyLimiter } from './rate-limits.js';

const PAGE_SIZE = 100;

/** Dependencies of the legacy host. */
export interface LegacyDeps {
  readonly state: ExchangeState;
  readonly faults: FaultController;
  readonly limiter: LegacyLimiter;
  readonly clock: Clock;
  readonly waiter: Waiter;
  /** Fault hook around order placement: throws the 5XX when armed. */
  orderFault(when: 'before' | 'after', path: string): void;
  /** Fault hook around a cancel of one order (submission "2"): throws the 5XX or the connection drop when armed. */
  cancelFault(when: 'before' | 'after', path: string): void;
}

type Params = Record<string, unknown>;

interface LegacyRoute {
  readonly method: 'GET' | 'POST';
  /** Path, or a prefix ending in '/' for the order book. */
  readonly path: string;
  readonly auth: boolean;
  handle(ctx: RequestContext, account: SandboxAccount | undefined, params: Params, now: number): Reply;
}

/** The /v1 failure envelope of an exchange error (the handler's own catch and the host's early errors share it). */
export function legacyErrorReply(e: ExchangeError): Reply {
  return { status: e.httpStatus, body: { success: false, message_code: String(e.exchangeCode), data: e.exchangeMsg } };
}

function fail(status: number, messageCode: string, text: string): never {
  throw new ExchangeError(status, messageCode, text, '');
}

const ok = (messageCode: string, data: unknown): Reply => ({ status: 200, body: { success: true, message_code: messageCode, data } });
const num = (d: Decimal): number => Number(d.toFixed());
const iso = (t: number): string => new Date(t).toISOString();
const uuidOf = (s: string): string => {
  const h = createHash('sha256').update(s).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
};

/** Builds the legacy host's request handler. */
export function legacyHandler(deps: LegacyDeps): HostHandler {
  const { state } = deps;
  const nonces = new Map<string, number>();
  const byKey = new Map<string, SandboxAccount>();
  for (const a of state.accounts.values()) byKey.set(a.legacyApiKey, a);
  const pair = (s: SandboxSymbol): string => `${s.info.baseAsset}${s.info.quoteAsset}`.toLowerCase();
  const symbolByPair = (p: unknown): SandboxSymbol | undefined => (typeof p === 'string' ? [...state.symbols.values()].find((s) => pair(s) === p.toLowerCase()) : undefined);
  // `currency` is the lower-case code (spec), so 'BTC' names no market.
  const symbolByCurrency = (c: unknown): SandboxSymbol | undefined => (typeof c === 'string' && c === c.toLowerCase() ? state.symbols.get(`${c.toUpperCase()}_IDR`) : undefined);

  const legacyStatus = (o: SimOrder): string => (o.status === 'NEW' || o.status === 'PARTIALLY_FILLED' ? 'active' : o.status === 'FILLED' ? 'fulfilled' : 'cancelled');
  const entry = (o: SimOrder, detail: boolean): Record<string, unknown> => {
    const s = state.symbols.get(o.symbol) as SandboxSymbol;
    const e: Record<string, unknown> = {
      orderId: Number(o.orderId),
      type: o.type === 'MARKET' ? 'market' : 'limit',
      side: o.side === 'BUY' ? 'buy' : 'sell',
      currencyPair: pair(s).toUpperCase(),
      quantity: num(o.origQty),
      availableQuantity: num(o.origQty.minus(o.executedQty)),
      postOnly: o.type === 'LIMIT_MAKER' || o.timeInForce === 'GTX',
      price: num(o.price),
    };
    if (detail) e.status = legacyStatus(o);
    else {
      e.Status = legacyStatus(o);
      e.Match = null;
    }
    e.dateTime = iso(o.createTime);
    return e;
  };
  // The spec types quantity, price and amount as JSON numbers: a string is refused, not converted.
  // The number's shortest decimal form goes through Decimal, so 5e-7 reads as 0.0000005, not as malformed.
  const positiveNumber = (p: Params, k: string): string => {
    const v = p[k];
    if (typeof v !== 'number' || !Number.isFinite(v) || v <= 0) fail(400, 'invalid_parameter', `${k} must be a positive JSON number`);
    return new Decimal(v).toFixed();
  };
  const orderIdOf = (p: Params, k = 'orderId'): number => {
    const v = p[k];
    if (typeof v !== 'number' || !Number.isSafeInteger(v) || v <= 0) fail(400, 'invalid_parameter', `${k} must be a positive integer`);
    return v;
  };

  const routes: LegacyRoute[] = [
    {
      method: 'GET',
      path: '/v1/history/transaction',
      auth: true,
      handle: (_c, a) => {
        const acc = a as SandboxAccount;
        const list = [...state.symbols.values()].flatMap((s) =>
          state.engine.accountTrades(acc.id, s.info.symbol, { limit: 1000 }).map((t) => ({
            Id: uuidOf(`trade:${acc.id}:${s.info.symbol}:${t.tradeId}`),
            Side: t.isBuyer ? 'Buy' : 'Sell',
            Currency: s.info.baseAsset,
            Amount: num(t.qty),
            Status: 'Success',
            DateTime: iso(t.time),
            time: t.time,
          })),
        );
        list.sort((x, y) => x.time - y.time);
        return ok('get_transaction_success', list.map(({ time: _t, ...r }) => r));
      },
    },
    {
      method: 'GET',
      path: '/v1/history/deposit',
      auth: true,
      handle: (_c, a) =>
        ok(
          'get_deposit_success',
          state.deposits
            .filter((d) => d.accountId === (a as SandboxAccount).id)
            .map((d) => ({ Id: uuidOf(`deposit:${d.id}`), TxId: d.asset === 'IDR' ? null : d.txId, Currency: d.asset, Type: 'Deposit', Status: d.status === 1 ? 'Success' : 'Pending', Amount: num(d.amount), DateTime: iso(d.insertTime) })),
        ),
    },
    {
      method: 'GET',
      path: '/v1/history/withdraw',
      auth: true,
      handle: (_c, a) =>
        ok(
          'get_withdraw_success',
          state.withdraws
            .filter((w) => w.accountId === (a as SandboxAccount).id)
            .map((w) => ({
              Id: uuidOf(`withdraw:${w.id}`),
              Fee: num(w.fee),
              Type: 'Withdraw',
              Status: w.status === 10 ? 'Success' : 'Pending',
              Currency: w.asset,
              Amount: num(w.amount),
              TxId: w.txId === '' ? null : w.txId,
              // Fiat withdrawals carry bank details as a string holding JSON, as the spec says.
              BankDetails:
                w.asset === 'IDR'
                  ? JSON.stringify({ UpdatedAt: iso(w.createTime), UserId: w.accountId, City: 'Jakarta', AccountNumber: w.address, BankAccountId: w.id, BankName: w.network, BankAccountType: 'savings', Status: 'active', CreatedAt: iso(w.createTime) })
                  : null,
              DateTime: iso(w.createTime),
            })),
        ),
    },
    {
      method: 'POST',
      path: '/v1/stp',
      auth: true,
      handle: (_ctx, a, p) => {
        const acc = a as SandboxAccount;
        if (typeof p.currency !== 'string' || !(LEGACY_STP_CURRENCIES as readonly string[]).includes(p.currency)) fail(400, 'invalid_parameter', `currency must be one of ${LEGACY_STP_CURRENCIES.join(', ')}`);
        const s = symbolByCurrency(p.currency);
        if (!s) fail(400, 'invalid_parameter', `no ${p.currency.toUpperCase()}_IDR market in this sandbox`);
        const side = p.side === 'buy' ? 'BUY' : p.side === 'sell' ? 'SELL' : fail(400, 'invalid_parameter', 'side must be buy or sell');
        const amount = positiveNumber(p, 'amount');
        // A conversion is a market order: a buy spends `amount` rupiah as a quoteOrderQty buy (the quantity
        // whose cost is closest to it, so possibly a little more: open API rule 4), a sell sells `amount` crypto.
        const res = state.exec((e, now) =>
          e.placeOrder({ accountId: acc.id, symbol: s.info.symbol, side, type: 'MARKET', ...(side === 'BUY' ? { quoteOrderQty: parseDecimal('amount', amount) } : { quantity: parseDecimal('amount', amount) }) }, now),
        );
        if (!res.ok) fail(400, 'conversion_rejected', `${res.reason}: ${res.message}`);
        const o = res.order;
        const avg = o.executedQty.isZero() ? o.executedQty : o.executedQuoteQty.div(o.executedQty);
        return ok('create_conversion_success', { ConversionId: uuidOf(`conversion:${acc.id}:${o.orderId}`), DateTime: iso(o.createTime), Side: side === 'BUY' ? 'Buy' : 'Sell', Price: num(avg), Amount: num(o.executedQty), Currency: s.info.baseAsset });
      },
    },
    {
      method: 'GET',
      path: '/v1/account',
      auth: true,
      handle: (_c, a) =>
        ok('get_account_success', {
          Balance: state.engine.balances((a as SandboxAccount).id).map((b) => ({ Amount: num(b.free.plus(b.locked)), AvailableBalance: num(b.free), Status: 'active', Currency: b.asset })),
        }),
    },
    {
      method: 'POST',
      path: '/v1/order',
      auth: true,
      handle: (ctx, a, p) => {
        const acc = a as SandboxAccount;
        // `submission` is a string in the spec; the number 1 is not the string '1'.
        const submission = typeof p.submission === 'string' ? p.submission : '';
        switch (submission) {
          case '1': {
            const s = symbolByCurrency(p.currency);
            if (!s) fail(400, 'invalid_parameter', 'currency must be the lower-case code of a configured <CUR>_IDR market');
            const side = p.side === 'buy' ? 'BUY' : p.side === 'sell' ? 'SELL' : fail(400, 'invalid_parameter', 'side must be buy or sell');
            const type = p.type === 'limit' ? 'LIMIT' : p.type === 'market' ? 'MARKET' : fail(400, 'invalid_parameter', 'type must be limit or market');
            const quantity = parseDecimal('quantity', positiveNumber(p, 'quantity'));
            const price = type === 'LIMIT' ? parseDecimal('price', positiveNumber(p, 'price')) : undefined;
            deps.orderFault('before', ctx.path);
            const res = state.exec((e, t) => e.placeOrder({ accountId: acc.id, symbol: s.info.symbol, side, type, quantity, ...(price ? { price, timeInForce: 'GTC' as const } : {}) }, t));
            if (!res.ok) fail(400, 'order_rejected', `${res.reason}: ${res.message}`);
            deps.orderFault('after', ctx.path);
            return ok('create_order_success', entry(res.order, false));
          }
          case '2': {
            const orderId = orderIdOf(p);
            deps.cancelFault('before', ctx.path);
            const res = state.exec((e, t) => e.cancelOrder({ accountId: acc.id, orderId }, t));
            if (!res.ok) fail(400, res.reason === 'UNKNOWN_ORDER' ? 'order_not_found' : 'cancel_rejected', `${res.reason}: ${res.message}`);
            deps.cancelFault('after', ctx.path);
            return ok('cancel_order_success', entry(res.order, true));
          }
          case '3': {
            const canceled = state.exec((e, t) => e.cancelAll(acc.id, undefined, t));
            return ok('cancel_all_order_success', `${canceled.length} orders have been cancelled`);
          }
          case '4': {
            const ids = p.orders;
            if (!Array.isArray(ids) || ids.length === 0 || !ids.every((x) => typeof x === 'number' && Number.isSafeInteger(x))) fail(400, 'invalid_parameter', 'orders must be a non-empty array of order ids');
            const done: number[] = [];
            state.exec((e, t) => {
              for (const id of ids as number[]) if (e.cancelOrder({ accountId: acc.id, orderId: id }, t).ok) done.push(id);
            });
            return ok('cancel_selected_order_success', done);
          }
          default:
            return fail(400, 'invalid_parameter', `submission must be the string "1", "2", "3" or "4", not ${JSON.stringify(p.submission)}`);
        }
      },
    },
    {
      method: 'GET',
      path: '/v1/order/list',
      auth: true,
      handle: (_c, a) => ok('get_all_active_order_success', state.engine.openOrders((a as SandboxAccount).id).map((o) => entry(o, false))),
    },
    {
      method: 'GET',
      path: '/v1/order/get',
      auth: true,
      handle: (_c, a, p) => {
        const o = state.engine.getOrder((a as SandboxAccount).id, { orderId: orderIdOf(p) });
        if (!o) fail(404, 'order_not_found', 'order not found');
        return ok('get_detail_order_success', entry(o, true));
      },
    },
    {
      method: 'POST',
      path: '/v1/rates',
      auth: false,
      handle: () =>
        ok(
          'get_rates_success',
          [...state.symbols.values()].map((s) => {
            const b = state.engine.bestBidAsk(s.info.symbol);
            return { currencyPair: pair(s), buy: b.askPrice ? num(b.askPrice) : 0, sell: b.bidPrice ? num(b.bidPrice) : 0 };
          }),
        ),
    },
    {
      method: 'GET',
      path: '/v1/rates/ticker',
      auth: false,
      handle: (ctx, _a, _p, now) => {
        const s = symbolByPair(ctx.params.get('currencyPair'));
        if (!s) fail(400, 'invalid_parameter', 'unknown currencyPair');
        const type = ctx.params.get('type') ?? 'days';
        if (type !== 'hours' && type !== 'days') fail(400, 'invalid_parameter', 'type must be hours or days');
        return ok('get_ticker_success', ticker(s, now));
      },
    },
    {
      method: 'GET',
      path: '/v1/rates/tickers',
      auth: false,
      handle: (_c, _a, _p, now) => ok('get_tickers_success', [...state.symbols.values()].map((s) => ticker(s, now))),
    },
    {
      method: 'GET',
      path: '/v1/orderbook/',
      auth: false,
      handle: (ctx, _a, _p, now) => {
        const s = symbolByPair(ctx.path.slice('/v1/orderbook/'.length));
        if (!s) fail(404, 'not_found', 'unknown currencyPair');
        const pageRaw = ctx.params.get('page') ?? '0';
        if (!/^\d{1,6}$/.test(pageRaw)) fail(400, 'invalid_parameter', 'page must be a non-negative integer');
        const page = Number(pageRaw);
        const book = state.engine.depth(s.info.symbol, (page + 1) * PAGE_SIZE);
        const cut = (l: typeof book.bids): number[][] => l.slice(page * PAGE_SIZE, (page + 1) * PAGE_SIZE).map((x) => [num(x.price), num(x.qty)]);
        return { status: 200, body: { bids: cut(book.bids), asks: cut(book.asks), timestamp: now } };
      },
    },
  ];

  function ticker(s: SandboxSymbol, now: number): Record<string, unknown> {
    const t = state.market.miniTicker(s.info.symbol, now);
    const b = state.engine.bestBidAsk(s.info.symbol);
    return {
      Name: pair(s).toUpperCase(),
      Close: t ? Number(t.c) : 0,
      Low: t ? Number(t.l) : 0,
      High: t ? Number(t.h) : 0,
      Open: t ? Number(t.o) : 0,
      Volume: t ? Number(t.v) : 0,
      Buy: b.bidPrice ? num(b.bidPrice) : 0,
      Sell: b.askPrice ? num(b.askPrice) : 0,
      DateTime: iso(now).slice(0, 10),
    };
  }

  const authenticate = (ctx: RequestContext): { account: SandboxAccount; params: Params } => {
    const key = ctx.headers['x-tc-apikey'];
    const payload = ctx.headers['x-tc-payload'];
    const signature = ctx.headers['x-tc-signature'];
    if (typeof key !== 'string' || !byKey.has(key)) fail(401, 'invalid_api_key', 'API key wrong');
    const account = byKey.get(key) as SandboxAccount;
    // The spec defines the value as the lowercase hex digest (the open API's "not case sensitive" is not said here).
    if (typeof payload !== 'string' || typeof signature !== 'string' || !/^[0-9a-f]{96}$/.test(signature) || !verifyLegacy(account.legacySecret, payload, signature)) {
      fail(401, 'invalid_signature', 'signature does not match the payload');
    }
    let params: unknown;
    try {
      params = JSON.parse(Buffer.from(payload, 'base64').toString('utf8'));
    } catch {
      fail(400, 'invalid_parameter', 'X-TC-PAYLOAD is not base64 of a JSON object');
    }
    if (typeof params !== 'object' || params === null || Array.isArray(params)) fail(400, 'invalid_parameter', 'X-TC-PAYLOAD is not base64 of a JSON object');
    const p = params as Params;
    const nonce = p.nonce;
    if (typeof nonce !== 'number' || !Number.isSafeInteger(nonce)) fail(400, 'invalid_nonce', 'nonce must be an integer');
    const last = nonces.get(key);
    if (last !== undefined && nonce <= last) fail(400, 'invalid_nonce', `nonce must be greater than ${last}`);
    nonces.set(key, nonce);
    return { account, params: p };
  };

  return async (ctx) => {
    const f = deps.faults.forRequest('legacy', ctx.path);
    if (f.blackhole) {
      await deps.waiter.forever();
      return { status: 503, body: { success: false, message_code: 'service_unavailable', data: 'sandbox stopping' } };
    }
    if (f.delayMs > 0) await deps.waiter.sleep(f.delayMs);
    const matching = routes.filter((r) => (r.path.endsWith('/') ? ctx.path.startsWith(r.path) && ctx.path.length > r.path.length : ctx.path === r.path));
    const route = matching.find((r) => r.method === ctx.method);
    const endpoint = route ? `${route.method} ${route.path}` : `${ctx.method} ${ctx.path}`;
    if (!deps.limiter.take(ctx.ip, endpoint)) return { status: 429, body: { err_str: 'limit exceeded' }, headers: { 'Retry-After': String(deps.limiter.retryAfterSec()) } };
    try {
      if (f.maintenance) fail(503, 'service_unavailable', 'service unavailable (maintenance); retry later');
      if (matching.length === 0) fail(404, 'not_found', `no such endpoint ${ctx.path}`);
      if (!route) fail(405, 'method_not_allowed', `method ${ctx.method} is not allowed for ${ctx.path}`);
      const accept = ctx.headers.accept;
      if (typeof accept === 'string' && accept !== '' && !/json|\*\/\*|application\/\*/.test(accept)) fail(406, 'not_acceptable', 'only JSON is served');
      const auth = route.auth ? authenticate(ctx) : undefined;
      return route.handle(ctx, auth?.account, auth?.params ?? {}, deps.clock.now());
    } catch (e) {
      if (e instanceof DropConnection) throw e;
      if (e instanceof ExchangeError) return legacyErrorReply(e);
      return { status: 500, body: { success: false, message_code: 'internal_error', data: e instanceof Error ? e.message : String(e) } };
    }
  };
}

