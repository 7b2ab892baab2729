/**
 * First step of a place check: each value of the intent onto its grid interval [lo, hi]; in
 * 'adjust' mode `snap` also rounds it onto its tick or step (toward the safe side).
 */
import type { PlaceIntent } from '../../bus/intents.js';
import { G as GRID, fromScaled, snap, toStep } from '../grid.js';
import type { ScaledSymbol } from '../rules.js';
import type { PlaceWork } from './placeWork.js';

// Imported bindings read once into module constants (see checkPlace.ts).
const G = GRID;
const snapX = snap;
const toStepX = toStep;
const fromScaledX = fromScaled;

/** Fills the price, stop, quantity and iceberg fields of `w`; false when a value cannot be placed on a grid. */
export function snapValues(intent: PlaceIntent, sc: ScaledSymbol, w: PlaceWork): boolean {
  const { ps, qs, adjust, buy } = w;
  // An absent value keeps the interval [0, 0] (exact, so later steps need no presence test).
  w.pLo = w.pHi = w.sLo = w.sHi = w.qLo = w.qHi = w.iLo = w.iHi = 0;
  const price = intent.price;
  w.price = price;
  if (price !== undefined) {
    if (!snapX(price, ps, adjust ? sc.tick : 0, sc.minPrice, !buy)) return false;
    w.pLo = G.lo;
    w.pHi = G.hi;
    if (G.moved) {
      w.price = fromScaledX(G.lo, ps);
      w.moved('price');
    }
  }
  const stop = intent.stopPrice;
  w.stop = stop;
  if (stop !== undefined) {
    if (!snapX(stop, ps, adjust ? sc.tick : 0, sc.minPrice, !buy)) return false;
    w.sLo = G.lo;
    w.sHi = G.hi;
    if (G.moved) {
      w.stop = fromScaledX(G.lo, ps);
      w.moved('stopPrice');
    }
  }
  const qty = intent.quantity;
  w.qty = qty;
  if (qty !== undefined) {
    if (!snapX(qty, qs, adjust && sc.lot ? sc.lot.step : 0, sc.lot?.min ?? 0, false)) return false;
    let moved = G.moved;
    if (adjust && w.marketType && sc.marketLot && sc.marketLot.step > 0) {
      const t = toStepX(G.lo, G.hi, sc.marketLot.min, sc.marketLot.step, false);
      moved ||= t !== G.lo || G.lo !== G.hi;
      G.lo = G.hi = t;
    }
    w.qLo = G.lo;
    w.qHi = G.hi;
    if (moved) {
      w.qty = fromScaledX(G.lo, qs);
      w.moved('quantity');
    }
  }
  const ice = intent.icebergQty;
  w.ice = ice;
  if (ice !== undefined) {
    if (!snapX(ice, qs, adjust && sc.lot ? sc.lot.step : 0, sc.lot?.min ?? 0, false)) return false;
    w.iLo = G.lo;
    w.iHi = G.hi;
    if (G.moved) {
      w.ice = fromScaledX(G.lo, qs);
      w.moved('icebergQty');
    }
  }
  return true;
}
