/**
 * Whether an order can have a taker phase now. The PRICE_RANGE execution rule expires only a
 * taker execution outside the limits (spec, States and transitions); an order that rests as a
 * maker is not affected, so refusing a passive order outside the band (a grid bid 10% below the
 * market) would refuse an order the exchange accepts.
 */
import type { Decimal } from '../core/decimal.js';
import type { PlaceIntent } from '../bus/intents.js';
import type { RiskMarketView } from './types.js';

/**
 * False only when the order certainly cannot take: LIMIT_MAKER and GTX never take, and a LIMIT
 * order that does not reach the opposite touch of a ready local book rests. Anything else (stop
 * limits, whose taker phase comes after a trigger; no book, or one not ready) may take, so the
 * rule is checked conservatively.
 */
export function mayTake(intent: PlaceIntent, price: Decimal, market: RiskMarketView): boolean {
  if (intent.orderType === 'LIMIT_MAKER' || intent.timeInForce === 'GTX') return false;
  if (intent.orderType !== 'LIMIT') return true;
  const book = market.book(intent.symbol);
  if (book === undefined || !book.ready) return true;
  if (intent.side === 'BUY') {
    const ask = book.bestAsk();
    return ask !== undefined && price.gte(ask.price);
  }
  const bid = book.bestBid();
  return bid !== undefined && price.lte(bid.price);
}
