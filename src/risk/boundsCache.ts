/**
 * Bounds the fast checker derives from context values, kept per (context, symbol) and keyed by
 * the identity of the Decimals they were computed from. A Decimal never changes, so a bound stays
 * right for as long as the context hands out the same object; a new object (a fill moved the
 * position, a new average price) recomputes it on the next check. Which slot a context gets only
 * affects how often bounds are recomputed, never a verdict.
 *
 * Every bound is an exact integer on the symbol's price grid (10^-ps), quantity grid (10^-qs) or
 * notional grid (10^-(ps+qs)), +-Infinity past 2^52, or NaN when numbers cannot give it exactly:
 * NaN sends the checker to its general comparisons (scaled.ts), so a bound is only a shortcut.
 */
import type { Decimal } from '../core/decimal.js';
import { ceilProduct, cmpWithUnpacked, floorProduct, floorSum3, unpack, unpacked } from './scaled.js';
import type { UserLimits } from './limits.js';

/** A multiplier or filter parameter as mantissa * 10^exp (structurally rules.ts's ScaledFactor). */
interface Factor {
  readonly m: number;
  readonly e: number;
}

const U = unpacked;
const unpackX = unpack;
const floorP = floorProduct;
const ceilP = ceilProduct;
const floorS = floorSum3;

/** Upper bound (floor of x * f on the price grid) of a band around x (PERCENT_PRICE, PRICE_RANGE); no factor, no bound. */
function bandHi(x: Decimal, f: Factor | undefined, ps: number): number {
  if (f === undefined) return Infinity;
  return unpackX(x) ? floorP(U.m, U.e, f.m, f.e, ps) : NaN;
}

/** Lower bound (ceil of x * f on the price grid) of a band around x. */
function bandLo(x: Decimal, f: Factor | undefined, ps: number): number {
  if (f === undefined) return -Infinity;
  return unpackX(x) ? ceilP(U.m, U.e, f.m, f.e, ps) : NaN;
}

/**
 * Position bounds of one side, keyed by position, open quantity on that side and maxPosition:
 * `reduce` is the largest quantity (grid units) that still reduces the position, `room` the
 * largest that stays within maxPosition.
 */
export class SideBounds {
  pos: Decimal | undefined = undefined;
  open: Decimal | undefined = undefined;
  max: Decimal | undefined | null = null;
  reduce = NaN;
  room = NaN;

  /** Recomputes both bounds unless the keys are the ones they were computed from (small, so it inlines). */
  update(buy: boolean, pos: Decimal, open: Decimal, max: Decimal | undefined, qs: number): void {
    if (pos !== this.pos || open !== this.open || max !== this.max) this.recompute(buy, pos, open, max, qs);
  }

  /** Computes both bounds for new keys. */
  recompute(buy: boolean, pos: Decimal, open: Decimal, max: Decimal | undefined, qs: number): void {
    this.pos = pos;
    this.open = open;
    this.max = max;
    this.reduce = this.room = NaN;
    if (!unpackX(pos)) return;
    // BUY reduces while q + open + pos <= 0 and fits while q + open + pos <= max; SELL mirrors pos.
    const pm = buy ? -U.m : U.m;
    const pe = U.e;
    if (!unpackX(open)) return;
    const om = -U.m;
    const oe = U.e;
    this.reduce = floorS(pm, pe, om, oe, 0, 0, qs);
    if (max === undefined) this.room = Infinity;
    else if (unpackX(max)) this.room = floorS(U.m, U.e, pm, pe, om, oe, qs);
  }
}

/** Bounds of one (context, symbol) pair. Fields are public for the checker's hot path. */
export class BoundsSlot {
  /** The context this slot was made for, by identity only (slot choice; see the module comment). */
  ctx: object;
  readonly buy = new SideBounds();
  readonly sell = new SideBounds();

  /** PERCENT_PRICE band on the price grid for average `avg`: price > avgHi or price < avgLo is outside. */
  avg: Decimal | null = null;
  avgHi = NaN;
  avgLo = NaN;

  /** PRICE_RANGE bands on the price grid for reference price `ref`. */
  ref: Decimal | null = null;
  bidHi = NaN;
  bidLo = NaN;
  askHi = NaN;
  askLo = NaN;

  /** Free quote balance `freeQuote` on the notional grid (floor), free base `freeBase` on the quantity grid. */
  freeQuote: Decimal | null = null;
  quoteMax = NaN;
  freeBase: Decimal | null = null;
  baseMax = NaN;

  /** maxOrderNotional of limits `limits` on the notional grid (floor; Infinity when unset), and the symbol's maxPosition. */
  limits: UserLimits | null = null;
  notionalMax = NaN;
  maxPos: Decimal | undefined = undefined;

  /** Sign of (-dailyLossLimit - pnl) for `pnl` and `lossLimit`: >= 0 means the limit is hit; NaN when truncation leaves it open. */
  pnl: Decimal | null = null;
  lossLimit: Decimal | null = null;
  lossCmp = NaN;

  constructor(ctx: object) {
    this.ctx = ctx;
  }

  /** Sets the PERCENT_PRICE band for `avg` (multipliers of the symbol's filter). */
  updateAvg(avg: Decimal, up: Factor | undefined, down: Factor | undefined, ps: number): void {
    this.avg = avg;
    this.avgHi = bandHi(avg, up, ps);
    this.avgLo = bandLo(avg, down, ps);
  }

  /** Sets the PRICE_RANGE bands for `ref` (the symbol's bid and ask multipliers). */
  updateRef(ref: Decimal, bidUp: Factor | undefined, bidDown: Factor | undefined, askUp: Factor | undefined, askDown: Factor | undefined, ps: number): void {
    this.ref = ref;
    this.bidHi = bandHi(ref, bidUp, ps);
    this.bidLo = bandLo(ref, bidDown, ps);
    this.askHi = bandHi(ref, askUp, ps);
    this.askLo = bandLo(ref, askDown, ps);
  }

  /** Sets the free quote balance bound (notional grid of `ns` decimals). */
  updateFreeQuote(free: Decimal, ns: number): void {
    this.freeQuote = free;
    this.quoteMax = unpackX(free) ? floorP(U.m, U.e, 1, 0, ns) : NaN;
  }

  /** Sets the free base balance bound (quantity grid of `qs` decimals). */
  updateFreeBase(free: Decimal, qs: number): void {
    this.freeBase = free;
    this.baseMax = unpackX(free) ? floorP(U.m, U.e, 1, 0, qs) : NaN;
  }

  /** Sets what depends only on the limits object (for the symbol of base asset `base`). */
  updateLimits(limits: UserLimits, base: string, ns: number): void {
    this.limits = limits;
    const max = limits.maxOrderNotional;
    this.notionalMax = max === undefined ? Infinity : unpackX(max) ? floorP(U.m, U.e, 1, 0, ns) : NaN;
    const mp = limits.maxPosition;
    this.maxPos = mp !== undefined && Object.hasOwn(mp, base) ? mp[base] : undefined;
  }

  /** Compares `pnl` with -`lossLimit` once per pair of values. */
  updateLoss(pnl: Decimal, lossLimit: Decimal): void {
    this.pnl = pnl;
    this.lossLimit = lossLimit;
    if (!unpackX(lossLimit)) {
      this.lossCmp = NaN;
      return;
    }
    const lm = U.m;
    const le = U.e;
    // pnl <= -limit  <=>  -limit - pnl >= 0
    const px = unpackX(pnl);
    this.lossCmp = cmpWithUnpacked(-lm, 1, le, U.m, U.e, px, 1, 0);
  }
}

/** Most contexts a symbol keeps slots for; past it slots are reused in turn (bounds recomputed). */
const MAX_SLOTS = 16;

/** The slots of one symbol, one per context that checked it (up to MAX_SLOTS). */
export class SymbolSlots {
  readonly #slots: BoundsSlot[] = [];
  #next = 0;

  /** The slot of `ctx`: a scan of a few identities, no hashing. */
  of(ctx: object): BoundsSlot {
    const a = this.#slots;
    for (let i = 0; i < a.length; i++) {
      const s = a[i] as BoundsSlot;
      if (s.ctx === ctx) return s;
    }
    if (a.length < MAX_SLOTS) {
      const s = new BoundsSlot(ctx);
      a.push(s);
      return s;
    }
    // Reuse in turn: the slot keeps its keys, so every bound is recomputed for its new context.
    const s = a[this.#next] as BoundsSlot;
    this.#next = (this.#next + 1) % MAX_SLOTS;
    s.ctx = ctx;
    return s;
  }
}
