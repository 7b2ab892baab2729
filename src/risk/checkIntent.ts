/**
 * The fast risk checker. Same contract, verdicts and messages as the decimal reference
 * (./reference/checkIntentReference.ts), computed on scaled integers: prices on the symbol's tick
 * grid, quantities on its step grid, products compared exactly (BigInt only past 2^52). Bounds
 * that depend only on context values (bands around the average and reference price, balances,
 * position room, user limits) are integers on those grids, kept per context and symbol in
 * ./boundsCache.ts, so an accepted order mostly compares integers; the rules run as named steps
 * in ./place/checkPlace.ts. It allocates nothing on an accepted, unadjusted intent (past the
 * first check of a context on a symbol). Values it cannot
 * place on a grid (more decimals than any filter allows with the filter disabled, digits beyond a
 * safe integer) take the decimal path; `riskPathStats` counts how often.
 */
import type { Intent } from '../bus/intents.js';
import { checkPlace } from './place/checkPlace.js';
import { checkIntentReference } from './reference/checkIntentReference.js';
import { BAIL as NO_VERDICT } from './grid.js';
import { checkShape } from './shape.js';
import { ACCEPT, type RiskDecision, type RiskContext, type RiskReject } from './types.js';

export { boundFallbacks } from './boundFallbacks.js';

// Imported bindings are read once into module constants: transpilers (tsx, vitest) turn each
// use of an imported name into a getter call, which costs more than the checks themselves here.
const shapeX = checkShape;
const placeX = checkPlace;
const referenceX = checkIntentReference;
const ACCEPT_X = ACCEPT;
const BAIL = NO_VERDICT;

/** How many place checks took the scaled path and how many fell back to decimals (for tests and the bench). */
export const riskPathStats = { fast: 0, fallback: 0 };

/** Checks one intent: accept, accept with rounding (mode 'adjust'), or reject with a reason. Pure. */
export function checkIntent(intent: Intent, ctx: RiskContext): RiskDecision {
  if (intent.kind !== 'place') return ACCEPT_X;
  const sym = ctx.rules.symbols.get(intent.symbol);
  if (sym === undefined) return shapeX(intent, sym, ctx) as RiskReject;
  if (sym.scaled === undefined) {
    riskPathStats.fallback++;
    return referenceX(intent, ctx);
  }
  const shape = shapeX(intent, sym, ctx);
  if (shape) return shape;
  const r = placeX(intent, sym, sym.scaled, ctx);
  if (r !== BAIL) {
    riskPathStats.fast++;
    return r;
  }
  riskPathStats.fallback++;
  return referenceX(intent, ctx);
}
