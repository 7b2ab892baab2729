/**
 * What one strategy owns, rebuilt from its own events: open orders (from its place intents and
 * orderUpdate events), positions and budget-limited balances (from fills), placement times.
 * The strategy context reads it, and it has the shape the risk checker's account view needs.
 */
import { type Decimal, ZERO, fitsPrecision } from '../core/decimal.js';
import { decimalOf, type DecimalSum } from '../core/decimalSum.js';
import { unpackDecimal, UNPACKED as T } from '../core/decimalNumber.js';
import { POW10 as CORE_POW10 } from '../core/pow10.js';
import { isTerminalState, type FillEvent, type OrderUpdateEvent } from '../bus/events.js';
import type { PlaceIntent } from '../bus/intents.js';
import { isBaseQuote, splitSymbol } from '../core/symbols.js';
import { HeldSums } from './heldSums.js';
import { RunningAmount } from './runningAmount.js';
import type { OwnOrderView } from './types.js';
import { PlacementTimes } from './placementTimes.js';

/** Core's powers of ten under a local const (see core/pow10.ts). */
const POW10 = CORE_POW10;
const MAX_SAFE = Number.MAX_SAFE_INTEGER;

interface OwnOrder extends OwnOrderView {
  readonly quoteOrderQty: Decimal | undefined;
  readonly cumQuoteQty: Decimal;
  /** A stop or take-profit order's trigger price: what a buy without a limit price holds by. */
  readonly stopPrice: Decimal | undefined;
}

/**
 * The assets of a symbol (`quote` is '' for a symbol without BASE_QUOTE form) and the keys of its
 * sides; and, once a fill has asked for them, the running amounts it moves (the same objects as in
 * the book's maps, which never replace one), so a fill looks them up once per symbol, not per fill.
 */
interface Assets {
  readonly base: string;
  readonly quote: string;
  readonly buyKey: string;
  readonly sellKey: string;
  position: RunningAmount | undefined;
  baseCash: RunningAmount | undefined;
  quoteCash: RunningAmount | undefined;
}

function assets(symbol: string): Assets {
  // Symbols are BASE_QUOTE; anything else has no asset split and only counts orders.
  const { base, quote } = isBaseQuote(symbol) ? splitSymbol(symbol) : { base: symbol, quote: '' };
  return { base, quote, buyKey: sideKey(symbol, 'BUY'), sellKey: sideKey(symbol, 'SELL'), position: undefined, baseCash: undefined, quoteCash: undefined };
}

/** Key of a symbol's side in the unfilled-quantity sums. */
function sideKey(symbol: string, side: string): string {
  return `${symbol}\u0000${side}`;
}

/** Whether two records of an order hold the same amounts (the same Decimals in every field a hold reads). */
function sameAmounts(a: OwnOrder, b: OwnOrder): boolean {
  return a.symbol === b.symbol && a.side === b.side && a.price === b.price && a.quantity === b.quantity && a.cumQty === b.cumQty && a.quoteOrderQty === b.quoteOrderQty && a.cumQuoteQty === b.cumQuoteQty && a.stopPrice === b.stopPrice;
}

/** The running amount of an asset, created at zero. */
function amountOf(m: Map<string, RunningAmount>, asset: string): RunningAmount {
  let a = m.get(asset);
  if (a === undefined) m.set(asset, (a = new RunningAmount()));
  return a;
}

/**
 * Decimal.max(x, ZERO) without copying both operands: x itself unless it is below zero (a
 * negative zero is not below zero, so it stays, as with Decimal.max).
 */
function atLeastZero(x: Decimal): Decimal {
  return x.isNegative() && !x.isZero() ? ZERO : x;
}

/**
 * What an open order holds: an amount of an asset (undefined: nothing), and its unfilled quantity
 * (undefined without a quantity) on the key of its symbol and side. An amount or quantity computed
 * in integers is kept as m x 10^k (its Decimal null until a rebuild of the sums lists it).
 */
interface Hold {
  readonly asset: string | undefined;
  amount: Decimal | undefined | null;
  readonly am: number;
  readonly ak: number;
  readonly sideKey: string;
  remaining: Decimal | undefined | null;
  readonly rm: number;
  readonly rk: number;
}

/** Scratch result of diffUnits: the difference is m x 10^k. */
const DIFF = { m: 0, k: 0 };

/** a x 10^ak - b x 10^bk into DIFF when both steps stay exact in safe integers. */
function diffUnits(a: number, ak: number, b: number, bk: number): boolean {
  if (b === 0) {
    DIFF.m = a;
    DIFF.k = ak;
    return true;
  }
  const k = a === 0 ? bk : Math.min(ak, bk);
  const x = a * (POW10[ak - k] ?? NaN);
  const y = b * (POW10[bk - k] ?? NaN);
  if (!(Math.abs(x) <= MAX_SAFE && Math.abs(y) <= MAX_SAFE && Math.abs(x - y) <= MAX_SAFE)) return false;
  DIFF.m = x - y;
  DIFF.k = k;
  return true;
}

/** The Decimal of m x 10^k (a zero is +0, as decimal.js's exact difference or product of non-negatives). */
function decimalOfUnits(m: number, k: number): Decimal {
  return m === 0 ? ZERO : decimalOf(m, k);
}

/** A hold's amount as a Decimal (built once, when a rebuild of the sums lists it). */
function holdAmount(h: Hold): Decimal | undefined {
  return h.amount === null ? (h.amount = decimalOfUnits(h.am, h.ak)) : h.amount;
}

/** A hold's unfilled quantity as a Decimal (as holdAmount). */
function holdRemaining(h: Hold): Decimal | undefined {
  return h.remaining === null ? (h.remaining = decimalOfUnits(h.rm, h.rk)) : h.remaining;
}

/** One strategy's orders, positions and budget. */
export class StrategyBook {
  readonly #orders = new Map<string, OwnOrder>();
  /** Budget plus fills per asset. */
  readonly #cash = new Map<string, RunningAmount>();
  /** Net position per asset from fills. */
  readonly #positions = new Map<string, RunningAmount>();
  /** The asset position() read last and its amount (undefined: none yet), kept current by fill(). */
  #posAsset: string | undefined;
  #posAmount: RunningAmount | undefined;
  readonly #placements = new PlacementTimes();
  /** Asset split of each symbol seen (fills and locks read it per event). */
  readonly #assets = new Map<string, Assets>();
  /**
   * Hold of each open order by clientId, computed when its record is stored: the same keys in the
   * same order as #orders (set and deleted together; a replaced record keeps its place in both).
   */
  readonly #holds = new Map<string, Hold>();
  /** Locked amounts of the open orders per asset, kept as records come and go (see HeldSums). */
  readonly #locked = new HeldSums();
  /** Unfilled quantities of the open orders per symbol side. */
  readonly #unfilled = new HeldSums();
  /**
   * The last list openOrders gave and its symbol ('' for all; null: none since the open orders
   * last changed): a quoting strategy and its own-orders book read it several times per event,
   * and the orders change far less often.
   */
  #listOf: string | null = null;
  #list: readonly OwnOrderView[] = [];

  constructor(budget: Readonly<Record<string, Decimal>> = {}) {
    for (const [a, v] of Object.entries(budget)) this.#cash.set(a, new RunningAmount(v));
  }

  /** Records a place intent as a PENDING order before it is sent. */
  placed(i: PlaceIntent, now: number): void {
    this.#placements.add(now);
    this.#put(i.clientId, {
      clientId: i.clientId,
      orderId: undefined,
      symbol: i.symbol,
      side: i.side,
      orderType: i.orderType,
      state: 'PENDING',
      price: i.price,
      quantity: i.quantity,
      cumQty: ZERO,
      quoteOrderQty: i.quoteOrderQty,
      cumQuoteQty: ZERO,
      stopPrice: i.stopPrice,
    });
  }

  /** The risk checker refused a place intent: the order never existed. */
  refused(clientId: string): void {
    const o = this.#orders.get(clientId);
    if (o && o.state === 'PENDING') this.#drop(clientId);
  }

  /** Applies an orderUpdate of one of the strategy's orders. */
  update(e: OrderUpdateEvent): void {
    if (isTerminalState(e.state)) {
      this.#drop(e.clientId);
      return;
    }
    const prev = this.#orders.get(e.clientId);
    this.#put(e.clientId, {
      clientId: e.clientId,
      orderId: e.orderId ?? prev?.orderId,
      symbol: e.symbol,
      side: e.side,
      orderType: e.orderType,
      state: e.state,
      price: e.price ?? prev?.price,
      quantity: e.quantity ?? prev?.quantity,
      cumQty: e.cumQty,
      quoteOrderQty: prev?.quoteOrderQty,
      cumQuoteQty: e.cumQuoteQty,
      stopPrice: e.stopPrice ?? prev?.stopPrice,
    });
  }

  /** Applies a fill: position, cash and commission. */
  fill(e: FillEvent): void {
    const as = this.#assetsOf(e.symbol);
    const { base, quote } = as;
    // plus/minus of the amount itself rather than of amount x (+1/-1): the same value (multiplying
    // by one or minus one only rounds an amount of more than 40 digits, which fills never have:
    // the venues' amounts are exchange decimals and their 40-digit products). Running sums: a
    // fill builds no Decimal (see RunningAmount).
    const buy = e.side === 'BUY';
    const pos = (as.position ??= amountOf(this.#positions, base));
    if (base === this.#posAsset) this.#posAmount = pos;
    const held = (as.baseCash ??= amountOf(this.#cash, base));
    if (buy) {
      pos.add(e.qty);
      held.add(e.qty);
    } else {
      pos.sub(e.qty);
      held.sub(e.qty);
    }
    if (quote !== '') {
      const q = (as.quoteCash ??= amountOf(this.#cash, quote));
      if (buy) q.sub(e.quoteQty);
      else q.add(e.quoteQty);
    }
    const fee = e.commissionAsset;
    if (fee && !e.commission.isZero()) {
      (fee === base ? held : fee === quote ? (as.quoteCash as RunningAmount) : amountOf(this.#cash, fee)).sub(e.commission);
      // A commission taken from the base asset leaves the account that much less of it (the
      // engine and the exchange charge a buy's in the base asset received), so the position is
      // net of it: selling the whole position must never ask for more than is held. A commission
      // in the quote or a third asset is a cost in cash, not part of any position.
      if (fee === base) pos.sub(e.commission);
    }
  }

  /** Budget plus fills, before locks. */
  cash(asset: string): Decimal {
    return this.#cash.get(asset)?.value ?? ZERO;
  }

  /**
   * Net position in an asset from the fills applied (a live run applies its earlier runs' first):
   * base quantities bought minus sold on symbols whose base is `asset`, minus the commissions
   * those fills charged in `asset` (what the fills left in the account). Quote flows and fees paid
   * in any other asset are not part of any position (see cash).
   */
  position(asset: string): Decimal {
    // A strategy reads its position at every bar: the amount of the asset asked before is kept.
    if (asset !== this.#posAsset) {
      this.#posAsset = asset;
      this.#posAmount = this.#positions.get(asset);
    }
    return this.#posAmount?.value ?? ZERO;
  }

  /** What open orders hold of an asset: buys hold quote (price x remaining), sells hold base. */
  locked(asset: string): Decimal {
    // A running sum (the order records are replaced, never changed): the risk check asks at
    // every place, and a loop over the open orders with a Decimal addition each was most of it.
    // The sum is the loop's own value (HeldSums), never negative when kept; a rebuilt one may be.
    const sum = this.#locked.sum(asset, () => this.#lockedTerms(asset));
    return atLeastZero(sum);
  }

  /** The locked amounts of an asset, in order of the open orders (the loop a running sum equals). */
  *#lockedTerms(asset: string): Generator<Decimal> {
    for (const h of this.#holds.values()) if (h.asset === asset && h.amount !== undefined) yield holdAmount(h) as Decimal;
  }

  /** Free (cash minus locks, never below zero) and locked balance of an asset. */
  balance(asset: string): { free: Decimal; locked: Decimal } {
    if (this.#orders.size === 0) return { free: this.free(asset), locked: ZERO };
    const locked = this.locked(asset);
    return { free: atLeastZero(this.cash(asset).minus(locked)), locked };
  }

  /** Free balance (the risk checker's view of the budget). */
  free(asset: string): Decimal {
    if (this.#orders.size > 0) return atLeastZero(this.cash(asset).minus(this.locked(asset)));
    // Nothing locked: max(cash - 0, 0) is the cash itself when positive, else zero. The risk
    // check asks once per place; this answers without building a Decimal.
    const cash = this.cash(asset);
    if (!fitsPrecision(cash)) return atLeastZero(cash.minus(ZERO));
    return cash.isPositive() && !cash.isZero() ? cash : ZERO;
  }

  /**
   * floor(free(asset) x 10^scale), the free balance on a grid of 10^-scale units, from the running
   * sums' integers without building a Decimal (the risk checker's balance check compares it with
   * an order's value on that grid): exact, +Infinity from 2^52 on, NaN when a sum is held as a
   * Decimal (free() answers then).
   */
  freeUnits(asset: string, scale: number): number {
    const cash = this.#cash.get(asset);
    // No cash: free is max(0 - locked, 0), and locks are never negative.
    if (cash === undefined) return 0;
    let held: DecimalSum | undefined;
    if (this.#orders.size > 0) {
      const l = this.#locked.exact(asset);
      if (l === null) return NaN;
      held = l;
    }
    // floor(max(x, 0)) is max(floor(x), 0); NaN stays NaN.
    const f = cash.floorMinus(held, scale);
    return f < 0 ? 0 : f;
  }

  /** Open orders, optionally of one symbol, in placement order (the same list until they change). */
  openOrders(symbol?: string): readonly OwnOrderView[] {
    const key = symbol ?? '';
    if (this.#listOf === key) return this.#list;
    const out: OwnOrderView[] = [];
    for (const o of this.#orders.values()) if (symbol === undefined || o.symbol === symbol) out.push(o);
    // Frozen: the list is handed out again until the orders change, so a strategy in plain
    // JavaScript that sorted or spliced it in place would corrupt the next caller's view.
    this.#listOf = key;
    this.#list = Object.freeze(out);
    return this.#list;
  }

  /** Unfilled quantity of open orders on a symbol and side. */
  openQty(symbol: string, side: 'BUY' | 'SELL'): Decimal {
    const a = this.#assetsOf(symbol);
    const key = side === 'BUY' ? a.buyKey : a.sellKey;
    return this.#unfilled.sum(key, () => this.#unfilledTerms(key));
  }

  /** The unfilled quantities on a symbol side, in order of the open orders. */
  *#unfilledTerms(key: string): Generator<Decimal> {
    for (const h of this.#holds.values()) if (h.sideKey === key && h.remaining !== undefined) yield holdRemaining(h) as Decimal;
  }

  /** Number of open orders. */
  openCount(): number {
    return this.#orders.size;
  }

  /** Placements with time > t, over the last day at most (see placementTimes.ts). */
  placementsSince(t: number): number {
    return this.#placements.countAfter(t);
  }

  /** Stores an open order's record (replacing its previous one in place) and moves the running sums. */
  #put(clientId: string, rec: OwnOrder): void {
    const prev = this.#orders.get(clientId);
    this.#orders.set(clientId, rec);
    this.#listOf = null;
    if (prev !== undefined) {
      // An acknowledgement repeats the placed order's very Decimals: the same hold, sums unchanged.
      if (sameAmounts(prev, rec)) return;
      this.#release(clientId);
    }
    const h = this.#holdOf(rec);
    this.#holds.set(clientId, h);
    if (h.asset !== undefined && h.amount !== undefined) {
      if (h.amount === null) this.#locked.addUnits(h.asset, h.am, h.ak);
      else this.#locked.add(h.asset, h.amount);
    }
    if (h.remaining === null) this.#unfilled.addUnits(h.sideKey, h.rm, h.rk);
    else if (h.remaining !== undefined) this.#unfilled.add(h.sideKey, h.remaining);
  }

  /** Forgets an open order. */
  #drop(clientId: string): void {
    if (!this.#orders.has(clientId)) return;
    this.#release(clientId);
    this.#orders.delete(clientId);
    this.#listOf = null;
    this.#holds.delete(clientId);
  }

  /** Takes an open order's amounts out of the running sums. */
  #release(clientId: string): void {
    const h = this.#holds.get(clientId);
    if (h === undefined) return;
    if (h.asset !== undefined && h.amount !== undefined) {
      if (h.amount === null) this.#locked.removeUnits(h.asset, h.am, h.ak);
      else this.#locked.remove(h.asset, h.amount);
    }
    if (h.remaining === null) this.#unfilled.removeUnits(h.sideKey, h.rm, h.rk);
    else if (h.remaining !== undefined) this.#unfilled.remove(h.sideKey, h.remaining);
  }

  /** What `o` holds: of the base asset for a sell, of the quote asset for a buy. */
  #holdOf(o: OwnOrder): Hold {
    const a = this.#assetsOf(o.symbol);
    const key = o.side === 'BUY' ? a.buyKey : o.side === 'SELL' ? a.sellKey : sideKey(o.symbol, o.side);
    const q = o.quantity;
    // The unfilled quantity in integers when quantity and cumQty are short non-negative decimals
    // (the exact difference: what decimal.js's minus gives for at most 16 digits); rm NaN otherwise.
    let rm = NaN;
    let rk = 0;
    if (q !== undefined && q.s > 0 && o.cumQty.s > 0 && unpackDecimal(q)) {
      const qm = T.m;
      const qk = T.k;
      if (unpackDecimal(o.cumQty) && diffUnits(qm, qk, T.m, T.k) && DIFF.m >= 0) {
        rm = DIFF.m;
        rk = DIFF.k;
      }
    }
    // Nothing filled: the quantity itself (x - 0 is x when x has at most 40 digits, as here).
    const same = q !== undefined && o.cumQty.isZero() && fitsPrecision(q);
    const remaining = q === undefined ? undefined : same ? q : rm === rm ? null : q.minus(o.cumQty);
    if (o.side === 'SELL') {
      if (remaining === null) return { asset: a.base, amount: null, am: rm, ak: rk, sideKey: key, remaining, rm, rk };
      return { asset: a.base, amount: remaining ?? ZERO, am: 0, ak: 0, sideKey: key, remaining, rm, rk };
    }
    if (o.side === 'BUY') {
      // A quoteOrderQty buy may spend a little more than the amount (the closer notional, spec new order
      // rule 4): one that has passed it holds nothing more rather than freeing other orders' locks.
      // A stop or take-profit buy without a limit price is locked at its trigger price (as the
      // exchange's matching engine locks it): unheld, its budget would pass a second order's check.
      const limit = o.price ?? o.stopPrice;
      if (o.quoteOrderQty === undefined && limit !== undefined && rm === rm && limit.s > 0 && unpackDecimal(limit)) {
        // limit x remaining in integers when the product of the mantissas is a safe integer (exact,
        // as decimal.js's product of at most 16 digits).
        const m = T.m * rm;
        if (m <= MAX_SAFE) return { asset: a.quote, amount: null, am: m, ak: T.k + rk, sideKey: key, remaining, rm, rk };
      }
      const left = remaining === null ? decimalOfUnits(rm, rk) : remaining;
      const amount = o.quoteOrderQty ? atLeastZero(o.quoteOrderQty.minus(o.cumQuoteQty)) : limit ? limit.mul(left ?? ZERO) : undefined;
      return { asset: a.quote, amount, am: 0, ak: 0, sideKey: key, remaining: left, rm, rk };
    }
    return { asset: undefined, amount: undefined, am: 0, ak: 0, sideKey: key, remaining, rm, rk };
  }

  #assetsOf(symbol: string): Assets {
    let a = this.#assets.get(symbol);
    if (a === undefined) this.#assets.set(symbol, (a = assets(symbol)));
    return a;
  }
}
