/**
 * The rules on the account, in the reference's order: the user's maxPosition, the daily loss limit
 * and the free balance. A balance is compared as an integer value on the grid against
 * floor(free x 10^scale) (v > f exactly when v > floor(f) for an integer v), from the account's
 * integers when it keeps them (freeUnits: no Decimal), else from the free balance's Decimal
 * through the slot; the Decimal is read for a message only on a refusal.
 */
import type { Decimal } from '../../core/decimal.js';
import type { PlaceIntent } from '../../bus/intents.js';
import * as m from '../messages.js';
import { boundFallbacks } from '../boundFallbacks.js';
import { decCmp, exceedsExactly, valueDecimal } from '../exactCompare.js';
import { BAIL as NO_VERDICT } from '../grid.js';
import { quoteBuyMostQty } from '../quoteBuyQty.js';
import { cmpWithUnpacked, unpack, unpacked } from '../scaled.js';
import type { ScaledSymbol, SymbolRules } from '../rules.js';
import type { RiskContext } from '../types.js';
import type { PlaceWork, StepResult } from './placeWork.js';

// Imported bindings read once into module constants (see checkPlace.ts).
const U = unpacked;
const unpackX = unpack;
const cmpU = cmpWithUnpacked;
const BAIL = NO_VERDICT;
const BF = boundFallbacks;
const decCmpX = decCmp;
const valueDecimalX = valueDecimal;
const exceedsX = exceedsExactly;
const quoteBuyMost = quoteBuyMostQty;

/** maxPosition, the daily loss limit, then the balance a buy spends (quote) or a sell delivers (base). */
export function checkAccountRules(intent: PlaceIntent, sym: SymbolRules, sc: ScaledSymbol, ctx: RiskContext, w: PlaceWork): StepResult {
  const { buy, priced, qs, ns, slot, price, stop, qty, qLo, maxPos, posDec, openDec, side, reducing, v1, v2, ve, marketValue, marketPrice, vg, onGrid } = w;
  const acct = ctx.account;
  const lim = ctx.limits;
  const Q = qLo;
  if (maxPos !== undefined) {
    if (qty === undefined) {
      // A quoteOrderQty buy: bounded by the best ask plus the step spec rule 4 may add (a rare order; plain decimals suffice).
      const qoq = intent.quoteOrderQty as Decimal;
      const ask = ctx.market.book(intent.symbol)?.bestAsk();
      if (ask === undefined) return m.noAsk(qoq);
      const room = maxPos.minus(posDec).minus(acct.openQty(intent.symbol, 'BUY'));
      if (quoteBuyMost(qoq, ask.price, sym).gt(room)) return m.overPosition('quoteOrderQty', qoq, sym.base, posDec, true, maxPos);
    } else {
      // `side` was updated for this position, open quantity and maximum above.
      const room = side.room;
      let over: boolean;
      if (room === room) over = Q > room;
      else {
        BF.maxPosition++;
        const r = exceedsX(Q, qs, buy, posDec, openDec as Decimal, maxPos);
        if (r === BAIL) return BAIL;
        over = r;
      }
      if (over) return m.overPosition('quantity', qty, sym.base, posDec, buy, maxPos);
    }
  }

  const lossLimit = lim.dailyLossLimit;
  if (lossLimit !== undefined && !reducing) {
    const pnl = acct.dailyPnl();
    if (pnl !== slot.pnl || lossLimit !== slot.lossLimit) slot.updateLoss(pnl, lossLimit);
    const c = slot.lossCmp;
    if (c !== c) return BAIL;
    if (c >= 0) return m.lossLimitHit(pnl, lossLimit);
  }

  // The balance: an integer value on the grid against floor(free x 10^scale) (v > f exactly when
  // v > floor(f) for an integer v), from the account's integers when it keeps them (freeUnits: no
  // Decimal), else from the free balance's Decimal through the slot; the Decimal is read for a
  // message only on a refusal.
  if (buy) {
    let free: Decimal | undefined;
    let c: number;
    const u = onGrid && marketValue === undefined ? (acct.freeUnits?.(sym.quote, ns) ?? NaN) : NaN;
    if (u === u) c = vg > u ? 1 : 0;
    else {
      free = acct.free(sym.quote);
      if (marketValue !== undefined) c = decCmpX(marketValue, free);
      else {
        if (free !== slot.freeQuote) slot.updateFreeQuote(free, ns);
        const t = slot.quoteMax;
        if (onGrid && t === t) c = vg > t ? 1 : 0;
        else {
          BF.balance++;
          const fx = unpackX(free);
          c = cmpU(v1, v2, ve, U.m, U.e, fx, 1, 0);
        }
      }
    }
    if (c !== c) return BAIL;
    if (c > 0) return m.insufficient(true, valueDecimalX(marketValue, intent, priced ? price : (stop ?? marketPrice), qty), sym.quote, free ?? acct.free(sym.quote));
  } else if (qty !== undefined) {
    let free: Decimal | undefined;
    let c: number;
    const u = acct.freeUnits?.(sym.base, qs) ?? NaN;
    if (u === u) c = Q > u ? 1 : 0;
    else {
      free = acct.free(sym.base);
      if (free !== slot.freeBase) slot.updateFreeBase(free, qs);
      const t = slot.baseMax;
      if (t === t) c = Q > t ? 1 : 0;
      else {
        BF.balance++;
        const fx = unpackX(free);
        c = cmpU(Q, 1, -qs, U.m, U.e, fx, 1, 0);
      }
    }
    if (c !== c) return BAIL;
    if (c > 0) return m.insufficient(false, qty, sym.base, free ?? acct.free(sym.base));
  }
  return undefined;
}
