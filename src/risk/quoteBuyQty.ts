/**
 * The most base quantity a MARKET buy by quoteOrderQty can get, for MAX_POSITION. The exchange
 * takes the LOT_SIZE/MARKET_LOT_SIZE quantity whose notional is closest to quoteOrderQty (spec new
 * order rule 4; docs/sim-engine.md, Rules): the largest one whose cost fits the budget, or one step
 * more when that notional is strictly closer. Every ask is at or above the best one, so the budget
 * buys at most M = quoteOrderQty / bestAsk, and the step up costs at least step * bestAsk: it is
 * closer only when the budget exceeds what the quantity below costs by more than half of that, which
 * puts that quantity more than half a step below M. So the exchange's quantity is below M + step / 2:
 * at most the grid quantity nearest to M (a tie rounding down), and never above maxQty, whatever the
 * book behind the best ask holds.
 */
import { Decimal, floorToStep } from '../core/decimal.js';
import type { LotSizeFilter } from '../core/filters.js';
import type { SymbolRules } from './rules.js';

/** Upper bound of the quantity a buy of `quoteOrderQty` gets when `bestAsk` is the best ask price. */
export function quoteBuyMostQty(quoteOrderQty: Decimal, bestAsk: Decimal, sym: SymbolRules): Decimal {
  const f = sym.info.filters;
  // The exchange steps up by the coarser step when both filters have one; rounding on either grid only lowers the quantity.
  let lot: LotSizeFilter | undefined;
  for (const l of [f.lotSize, f.marketLotSize]) if (l !== undefined && !l.stepSize.isZero() && (lot === undefined || l.stepSize.gt(lot.stepSize))) lot = l;
  let most = quoteOrderQty.div(bestAsk);
  if (lot !== undefined) {
    const below = floorToStep(most, lot.stepSize, lot.minQty);
    most = most.minus(below).mul(2).gt(lot.stepSize) ? below.plus(lot.stepSize) : below;
  }
  for (const l of [f.lotSize, f.marketLotSize]) if (l !== undefined && l.maxQty.gt(0)) most = Decimal.min(most, l.maxQty);
  return most;
}
