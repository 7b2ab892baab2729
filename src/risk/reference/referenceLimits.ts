/**
 * The user's limits and the account as the reference checker applies them: the order's quote
 * value, maxOrderNotional, maxPosition, the daily loss limit and the free balance. Plain decimal.js.
 */
import { type Decimal, ZERO } from '../../core/decimal.js';
import * as m from '../messages.js';
import { quoteBuyMostQty } from '../quoteBuyQty.js';
import type { RiskReject } from '../types.js';
import type { ReferenceOrder } from './referenceOrder.js';

/** Quote value of the order (what a buy spends and what the notional limit measures), or the refusal of a market order the book cannot fill. */
export function referenceValue(o: ReferenceOrder): Decimal | RiskReject {
  const { intent, price, stopPrice, qty } = o;
  if (o.priced && price !== undefined && qty !== undefined) return price.mul(qty);
  // A quoteOrderQty buy may spend less than half a step's cost more than asked (spec rule 4 rounding up
  // to the closer notional), and only from a free balance that pays it: the limits hold the amount asked.
  if (intent.quoteOrderQty !== undefined) return intent.quoteOrderQty;
  if (o.stopType && stopPrice !== undefined && qty !== undefined) return stopPrice.mul(qty);
  const q = qty ?? ZERO;
  const cost = o.ctx.market.book(intent.symbol)?.costToFill(intent.side, q);
  if (cost === undefined || cost.filledQty.lt(q)) return m.noLiquidity(q, intent.side);
  return cost.quoteQty;
}

/** MAX_ORDER_NOTIONAL: the order's value within the user's maxOrderNotional. */
export function maxNotionalRule(o: ReferenceOrder, value: Decimal): RiskReject | undefined {
  const maxNotional = o.ctx.limits.maxOrderNotional;
  if (maxNotional !== undefined && value.gt(maxNotional)) return m.overNotionalLimit(value, o.sym.quote, maxNotional);
  return undefined;
}

/** MAX_POSITION: the position after every open order on this side and this one within the user's maxPosition. */
export function maxPositionRule(o: ReferenceOrder, value: Decimal): RiskReject | undefined {
  const { intent, sym, ctx, qty, position } = o;
  const maxPos = ctx.limits.maxPosition?.[sym.base];
  if (maxPos === undefined) return undefined;
  if (o.buy) {
    const room = maxPos.minus(position).minus(ctx.account.openQty(intent.symbol, 'BUY'));
    if (qty !== undefined) return qty.gt(room) ? m.overPosition('quantity', qty, sym.base, position, true, maxPos) : undefined;
    // A quoteOrderQty buy gets at most what the budget buys at the best ask, plus the step spec rule 4 may add.
    const ask = ctx.market.book(intent.symbol)?.bestAsk();
    if (ask === undefined) return m.noAsk(value);
    if (quoteBuyMostQty(value, ask.price, sym).gt(room)) return m.overPosition('quoteOrderQty', value, sym.base, position, true, maxPos);
  } else if (qty !== undefined) {
    const room = maxPos.plus(position).minus(ctx.account.openQty(intent.symbol, 'SELL'));
    if (qty.gt(room)) return m.overPosition('quantity', qty, sym.base, position, false, maxPos);
  }
  return undefined;
}

/** DAILY_LOSS_LIMIT: once the day's PnL reached the limit, only orders that reduce the position pass. */
export function lossLimitRule(o: ReferenceOrder): RiskReject | undefined {
  const lossLimit = o.ctx.limits.dailyLossLimit;
  if (lossLimit === undefined || o.reducing) return undefined;
  const pnl = o.ctx.account.dailyPnl();
  if (pnl.lte(lossLimit.neg())) return m.lossLimitHit(pnl, lossLimit);
  return undefined;
}

/** The free balance: a buy's value in the quote asset, a sell's quantity in the base asset. */
export function balanceRule(o: ReferenceOrder, value: Decimal): RiskReject | undefined {
  const { sym, ctx, qty } = o;
  if (o.buy) {
    const free = ctx.account.free(sym.quote);
    if (value.gt(free)) return m.insufficient(true, value, sym.quote, free);
  } else if (qty !== undefined) {
    const free = ctx.account.free(sym.base);
    if (qty.gt(free)) return m.insufficient(false, qty, sym.base, free);
  }
  return undefined;
}
