/**
 * Order-count checks: the exchange's MAX_NUM_* filters and the user's open-order and order-rate
 * limits. Integers only, so the fast checker and the decimal reference share this code.
 */
import type { PlaceIntent } from '../bus/intents.js';
import { rejectParts } from './messages.js';
import type { SymbolRules } from './rules.js';
import type { RiskContext, RiskReject } from './types.js';

/** The order-count filters and user count limits (`iceberg`: the order has icebergQty; `algo`: its type needs stopPrice). */
export function checkCounts(intent: PlaceIntent, sym: SymbolRules, ctx: RiskContext, iceberg: boolean, algo: boolean): RiskReject | undefined {
  const f = sym.info.filters;
  const symbol = intent.symbol;
  const sc = ctx.account.symbolOpenOrders(symbol);
  const { total, algo: algoOpen, iceberg: icebergOpen } = sc;
  const maxOrders = f.maxNumOrders;
  if (maxOrders !== undefined && total >= maxOrders) return rejectParts('MAX_NUM_ORDERS', 'symbol=', symbol, ': ', total, ' open orders, MAX_NUM_ORDERS limit ', maxOrders);
  const maxAlgo = f.maxNumAlgoOrders;
  if (algo && maxAlgo !== undefined && algoOpen >= maxAlgo) return rejectParts('MAX_NUM_ALGO_ORDERS', 'symbol=', symbol, ': ', algoOpen, ' open algo orders, MAX_NUM_ALGO_ORDERS limit ', maxAlgo);
  const maxIce = f.maxNumIcebergOrders;
  if (iceberg && maxIce !== undefined && icebergOpen >= maxIce) return rejectParts('MAX_NUM_ICEBERG_ORDERS', 'symbol=', symbol, ': ', icebergOpen, ' open iceberg orders, MAX_NUM_ICEBERG_ORDERS limit ', maxIce);
  const ex = ctx.rules.exchange;
  const exOrders = ex.maxNumOrders;
  const exAlgo = ex.maxNumAlgoOrders;
  if (exOrders !== undefined || exAlgo !== undefined) {
    const ec = ctx.account.exchangeOpenOrders();
    const eTotal = ec.total;
    const eAlgo = ec.algo;
    if (exOrders !== undefined && eTotal >= exOrders) return rejectParts('EXCHANGE_MAX_NUM_ORDERS', eTotal, ' open orders on the exchange, EXCHANGE_MAX_NUM_ORDERS limit ', exOrders);
    if (algo && exAlgo !== undefined && eAlgo >= exAlgo) return rejectParts('EXCHANGE_MAX_NUM_ALGO_ORDERS', eAlgo, ' open algo orders on the exchange, EXCHANGE_MAX_NUM_ALGO_ORDERS limit ', exAlgo);
  }
  const lim = ctx.limits;
  const maxOpen = lim.maxOpenOrders;
  if (maxOpen !== undefined) {
    const n = ctx.account.strategyOpenOrders();
    const strategy = intent.strategy;
    if (n >= maxOpen) return rejectParts('MAX_OPEN_ORDERS', n, ' open orders of strategy ', strategy, ', maxOpenOrders ', maxOpen);
  }
  const rate = lim.maxOrderRate;
  if (rate !== undefined) {
    const { count, windowMs } = rate;
    const n = ctx.account.placementsSince(ctx.now - windowMs);
    if (n >= count) return rejectParts('MAX_ORDER_RATE', n, ' orders in the last ', windowMs, ' ms, maxOrderRate ', count);
  }
  return undefined;
}
