/** The order routes of the legacy interface: POST /v1/order (create, cancel one, cancel all, cancel selected), the active order list and one order's detail. */
import { parseDecimal } from '../core/index.js';
import type { SandboxAccount } from './config.js';
import { fail, ok, orderIdOf, positiveNumber, type LegacyDeps, type LegacyRoute } from './legacy-kit.js';
import type { LegacyView } from './legacy-view.js';

/** POST /v1/order, GET /v1/order/list, GET /v1/order/get. */
export function legacyOrderRoutes(deps: LegacyDeps, view: LegacyView): LegacyRoute[] {
  const { state } = deps;
  const { symbolByCurrency, entry } = view;
  return [
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
  ];
}
