/**
 * Order-count checks: the exchange's MAX_NUM_* filters and the user's open-order and order-rate
 * limits. Integers only, so the fast checker and the decimal reference share this code.
 */
import type { PlaceIntent } from '../bus/intents.js';
import { reject } from './messages.js';
import { STOP_TYPES, type SymbolRules } from './rules.js';
import type { RiskContext, RiskReject } from './types.js';

/** The order-count filters and user count limits. */
export function checkCounts(intent: PlaceIntent, sym: SymbolRules, ctx: RiskContext, iceberg: boolean): RiskReject | undefined {
  const f = sym.info.filters;
  const algo = STOP_TYPES.has(intent.orderType);
  const sc = ctx.account.symbolOpenOrders(intent.symbol);
  if (f.maxNumOrders !== undefined && sc.total >= f.maxNumOrders) return reject('MAX_NUM_ORDERS', `symbol=${intent.symbol}: ${sc.total} open orders, MAX_NUM_ORDERS limit ${f.maxNumOrders}`);
  if (algo && f.maxNumAlgoOrders !== undefined && sc.algo >= f.maxNumAlgoOrders) return reject('MAX_NUM_ALGO_ORDERS', `symbol=${intent.symbol}: ${sc.algo} open algo orders, MAX_NUM_ALGO_ORDERS limit ${f.maxNumAlgoOrders}`);
  if (iceberg && f.maxNumIcebergOrders !== undefined && sc.iceberg >= f.maxNumIcebergOrders) return reject('MAX_NUM_ICEBERG_ORDERS', `symbol=${intent.symbol}: ${sc.iceberg} open iceberg orders, MAX_NUM_ICEBERG_ORDERS limit ${f.maxNumIcebergOrders}`);
  const ex = ctx.rules.exchange;
  if (ex.maxNumOrders !== undefined || ex.maxNumAlgoOrders !== undefined) {
    const ec = ctx.account.exchangeOpenOrders();
    if (ex.maxNumOrders !== undefined && ec.total >= ex.maxNumOrders) return reject('EXCHANGE_MAX_NUM_ORDERS', `${ec.total} open orders on the exchange, EXCHANGE_MAX_NUM_ORDERS limit ${ex.maxNumOrders}`);
    if (algo && ex.maxNumAlgoOrders !== undefined && ec.algo >= ex.maxNumAlgoOrders) return reject('EXCHANGE_MAX_NUM_ALGO_ORDERS', `${ec.algo} open algo orders on the exchange, EXCHANGE_MAX_NUM_ALGO_ORDERS limit ${ex.maxNumAlgoOrders}`);
  }
  const lim = ctx.limits;
  if (lim.maxOpenOrders !== undefined) {
    const n = ctx.account.strategyOpenOrders();
    if (n >= lim.maxOpenOrders) return reject('MAX_OPEN_ORDERS', `${n} open orders of strategy ${intent.strategy}, maxOpenOrders ${lim.maxOpenOrders}`);
  }
  if (lim.maxOrderRate !== undefined) {
    const n = ctx.account.placementsSince(ctx.now - lim.maxOrderRate.windowMs);
    if (n >= lim.maxOrderRate.count) return reject('MAX_ORDER_RATE', `${n} orders in the last ${lim.maxOrderRate.windowMs} ms, maxOrderRate ${lim.maxOrderRate.count}`);
  }
  return undefined;
}
