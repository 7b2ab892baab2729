/**
 * The fast path of a place intent whose shape passed, in the order the reference
 * (../reference/checkIntentReference.ts) applies its rules: the values onto their grids
 * (snapValues.ts), the position and the grid filters (gridRules.ts), the rules that need exact
 * values (marketRules.ts), the order value and maxOrderNotional (orderValue.ts), then maxPosition,
 * the daily loss limit and the balance (accountRules.ts). The steps share one PlaceWork
 * (placeWork.ts) and answer undefined to go on, BAIL (null) when the decimal path must decide, or
 * the verdict.
 */
import type { PlaceIntent } from '../../bus/intents.js';
import { BAIL as NO_VERDICT } from '../grid.js';
import { T_MARKET, T_PRICED, type ScaledSymbol, type SymbolRules } from '../rules.js';
import { shapeState } from '../shape.js';
import { ACCEPT, type RiskContext, type RiskDecision } from '../types.js';
import { checkAccountRules } from './accountRules.js';
import { checkGridRules } from './gridRules.js';
import { checkMarketRules } from './marketRules.js';
import { checkOrderValue } from './orderValue.js';
import { placeWork } from './placeWork.js';
import { snapValues } from './snapValues.js';

// Imported bindings are read once into module constants: transpilers (tsx, vitest) turn each
// use of an imported name into a getter call, which costs more than the checks themselves here.
const W = placeWork;
const SHAPE_STATE = shapeState;
const BAIL = NO_VERDICT;
const ACCEPT_X = ACCEPT;
const PRICED = T_PRICED;
const MARKET = T_MARKET;
const snapX = snapValues;
const gridRulesX = checkGridRules;
const marketRulesX = checkMarketRules;
const orderValueX = checkOrderValue;
const accountRulesX = checkAccountRules;

/** Accept, adjust or reject on scaled integers; BAIL when the decimal path must decide. */
export function checkPlace(intent: PlaceIntent, sym: SymbolRules, sc: ScaledSymbol, ctx: RiskContext): RiskDecision | null {
  const w = W;
  const traits = SHAPE_STATE.traits;
  w.buy = intent.side === 'BUY';
  w.adjust = ctx.mode === 'adjust';
  w.traits = traits;
  w.priced = (traits & PRICED) !== 0;
  w.marketType = (traits & MARKET) !== 0;
  w.ps = sc.ps;
  w.qs = sc.qs;
  w.ns = sc.ps + sc.qs;
  w.slot = sc.slots.of(ctx);
  w.fields = undefined;
  if (!snapX(intent, sc, w)) return BAIL;
  let r = gridRulesX(intent, sym, sc, ctx, w);
  if (r !== undefined) return r;
  r = marketRulesX(intent, sym, sc, ctx, w);
  if (r !== undefined) return r;
  r = orderValueX(intent, sym, sc, ctx, w);
  if (r !== undefined) return r;
  r = accountRulesX(intent, sym, sc, ctx, w);
  if (r !== undefined) return r;

  const fields = w.fields;
  if (fields === undefined) return ACCEPT_X;
  const adjusted: PlaceIntent = { ...intent, price: w.price, stopPrice: w.stop, quantity: w.qty, icebergQty: w.ice };
  return { kind: 'adjust', intent: adjusted, fields };
}
