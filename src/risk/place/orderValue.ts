/**
 * The order value in the quote asset, v1 * v2 * 10^ve (price x quantity, quoteOrderQty, or stop x
 * quantity; a market order by quantity walks the book and keeps the cost as a Decimal), and the
 * user's maxOrderNotional against it.
 */
import type { Decimal } from '../../core/decimal.js';
import type { PlaceIntent } from '../../bus/intents.js';
import * as m from '../messages.js';
import { boundFallbacks } from '../boundFallbacks.js';
import { decCmp, valueDecimal } from '../exactCompare.js';
import { BAIL as NO_VERDICT } from '../grid.js';
import { T_STOP } from '../rules.js';
import { cmpProducts, unpack, unpacked } from '../scaled.js';
import type { ScaledSymbol, SymbolRules } from '../rules.js';
import { POW10 as CORE_POW10 } from '../../core/pow10.js';
import type { RiskContext } from '../types.js';
import type { PlaceWork, StepResult } from './placeWork.js';

// Imported bindings read once into module constants (see checkPlace.ts).
const U = unpacked;
const unpackX = unpack;
const cmpP = cmpProducts;
const BAIL = NO_VERDICT;
const BF = boundFallbacks;
const STOP = T_STOP;
const decCmpX = decCmp;
const valueDecimalX = valueDecimal;
const POW10 = CORE_POW10;
const MAX_SAFE = Number.MAX_SAFE_INTEGER;

/** Scratch answer of singleLevelPrice. */
const PX = { m: 0, e: 0 };

/**
 * `price` as PX.m * 10^PX.e, on the price grid when its digits allow (then the order value lands
 * on the notional grid, as a priced order's does); false when it does not unpack exactly.
 */
function singleLevelPrice(price: Decimal, ps: number): boolean {
  if (!unpackX(price)) return false;
  let pm = U.m;
  let pe = U.e;
  // unpack leaves a word's trailing zeros in place: dropped, or padded, to reach the grid.
  while (pe < -ps && pm % 10 === 0 && pm !== 0) {
    pm /= 10;
    pe++;
  }
  const f = pe > -ps ? POW10[pe + ps] : undefined;
  if (f !== undefined && pm * f <= MAX_SAFE) {
    pm *= f;
    pe = -ps;
  }
  PX.m = pm;
  PX.e = pe;
  return true;
}

/** Sets the order value in `w`, then checks maxOrderNotional; refuses a market order the book cannot fill. */
export function checkOrderValue(intent: PlaceIntent, sym: SymbolRules, sc: ScaledSymbol, ctx: RiskContext, w: PlaceWork): StepResult {
  const { traits, priced, ns, slot, price, pLo, stop, sLo, qty, qLo } = w;
  const P = pLo;
  const S = sLo;
  const Q = qLo;
  // Order value v1 * v2 * 10^ve in the quote asset; its Decimal is built only for a message.
  let v1: number;
  let v2 = 1;
  let ve: number;
  let marketValue: Decimal | undefined;
  let marketPrice: Decimal | undefined;
  if (priced && price !== undefined && qty !== undefined) {
    v1 = P;
    v2 = Q;
    ve = -ns;
  } else if (intent.quoteOrderQty !== undefined) {
    if (!unpackX(intent.quoteOrderQty)) return BAIL;
    v1 = U.m;
    ve = U.e;
  } else if ((traits & STOP) !== 0 && stop !== undefined && qty !== undefined) {
    v1 = S;
    v2 = Q;
    ve = -ns;
  } else {
    const q = qty as Decimal;
    const book = ctx.market.book(intent.symbol);
    // One level of unbounded quantity (candle mode): price x quantity in scaled integers, exact
    // (two safe integers: at most 32 digits, which the reference's 40-digit product keeps whole).
    const one = w.qLo === w.qHi && Q > 0 ? book?.singlePrice?.() : undefined;
    if (one !== undefined && singleLevelPrice(one, w.ps)) {
      v1 = PX.m;
      v2 = Q;
      ve = PX.e - w.qs;
      marketPrice = one;
    } else {
      const cost = book?.costToFill(intent.side, q);
      if (cost === undefined || decCmpX(cost.filledQty, q) < 0) return m.noLiquidity(q, intent.side);
      // A book walk sums products of arbitrary decimals: compared as a Decimal (no allocation).
      marketValue = cost.quoteQty;
      v1 = 0;
      ve = 0;
    }
  }

  // The order value on the notional grid when it is exact there (NaN otherwise): compared with
  // the bounds of the slot instead of through products.
  const vg = ve === -ns ? v1 * v2 : NaN;
  const onGrid = vg < 2 ** 52 && vg > -(2 ** 52);

  w.v1 = v1;
  w.v2 = v2;
  w.ve = ve;
  w.marketValue = marketValue;
  w.marketPrice = marketPrice;
  w.vg = vg;
  w.onGrid = onGrid;
  const maxNotional = ctx.limits.maxOrderNotional;
  if (maxNotional !== undefined) {
    let over: boolean;
    const t = slot.notionalMax;
    if (marketValue !== undefined) over = decCmpX(marketValue, maxNotional) > 0;
    else if (onGrid && t === t) over = vg > t;
    else {
      BF.maxNotional++;
      if (!unpackX(maxNotional)) return BAIL;
      over = cmpP(v1, v2, ve, U.m, 1, U.e) > 0;
    }
    if (over) return m.overNotionalLimit(valueDecimalX(marketValue, intent, priced ? price : (stop ?? marketPrice), qty), sym.quote, maxNotional);
  }
  return undefined;
}
