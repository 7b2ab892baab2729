/**
 * Exact position and PnL accounting per (strategy, symbol), average-cost method, in the quote
 * currency. Fees are converted to quote at the fill price when charged in the base asset (and
 * leave the position, see applyFill), and are kept apart from realized PnL so gross and net can
 * both be reported.
 */
import { BIG_ZERO, bigCmp, bigDiv, bigMinus, bigNeg, bigOf, bigPlus, bigRound, bigSign, bigTimes, bigToDecimal, type BigDec } from '../core/bigDecimal.js';
import { type Decimal, ZERO } from '../core/decimal.js';
import type { OrderSideName } from '../core/enums.js';
import { DecimalSum } from '../core/decimalSum.js';

/** The fields of a fill that accounting needs (a bus FillEvent has all of them). */
export interface FillLike {
  readonly E: number;
  readonly strategy: string;
  readonly symbol: string;
  readonly side: OrderSideName;
  readonly price: Decimal;
  readonly qty: Decimal;
  readonly quoteQty: Decimal;
  readonly commission: Decimal;
  readonly commissionAsset: string | null;
}

/**
 * Running state of one position. Quantities signed: positive long, negative short. The running
 * sums (fees, cash, turnover) are {@link DecimalSum}s: a fill adds to them without building
 * Decimals while they stay small, and they read as the Decimals the plain loop gives. Quantity,
 * average price and realized PnL are kept as {@link BigDec}s (core/bigDecimal.ts): the same
 * 40-digit arithmetic as decimal.js, about five times cheaper for the average price's division;
 * their Decimals are built when read.
 */
export class PositionState {
  readonly baseAsset: string;
  readonly quoteAsset: string;
  /** Signed quantity (exact). */
  qtyBig: BigDec = BIG_ZERO;
  /** Average entry price of the open quantity (0 when flat). */
  avgBig: BigDec = BIG_ZERO;
  /** Realized PnL (average cost), gross of fees: the plain loop's sum of 40-digit products. */
  realizedBig: BigDec = BIG_ZERO;
  trades = 0;
  readonly feesSum = new DecimalSum();
  readonly cashSum = new DecimalSum();
  readonly turnoverSum = new DecimalSum();
  /** Decimals of the BigDec fields as last read, with the values they were built from. */
  #qtyDec: [BigDec, Decimal] = [BIG_ZERO, ZERO];
  #avgDec: [BigDec, Decimal] = [BIG_ZERO, ZERO];
  #realizedDec: [BigDec, Decimal] = [BIG_ZERO, ZERO];

  constructor(
    readonly strategy: string,
    readonly symbol: string,
  ) {
    const { base, quote } = assetsOf(symbol);
    this.baseAsset = base;
    this.quoteAsset = quote;
  }

  /** Whether the position is flat (no Decimal built). */
  get flat(): boolean {
    return this.qtyBig.m === 0n;
  }
  /** Signed quantity. */
  get qty(): Decimal {
    return decimalOfBig(this.#qtyDec, this.qtyBig);
  }
  /** Average entry price of the open quantity (0 when flat). */
  get avgPrice(): Decimal {
    return decimalOfBig(this.#avgDec, this.avgBig);
  }
  /** Realized PnL (average cost), gross of fees. */
  get realized(): Decimal {
    return decimalOfBig(this.#realizedDec, this.realizedBig);
  }
  /** Fees in quote currency. */
  get fees(): Decimal {
    return this.feesSum.value;
  }
  /** Quote cash flow: sells add, buys subtract, fees charged in the quote asset subtract (a base fee leaves the position instead). */
  get cash(): Decimal {
    return this.cashSum.value;
  }
  /** Sum of traded notional. */
  get turnover(): Decimal {
    return this.turnoverSum.value;
  }
}

/** The Decimal of `x`, rebuilt only when `x` is not the value `memo` was built from. */
function decimalOfBig(memo: [BigDec, Decimal], x: BigDec): Decimal {
  if (memo[0] !== x) {
    memo[0] = x;
    memo[1] = x.m === 0n ? ZERO : bigToDecimal(x);
  }
  return memo[1];
}

/** Splits BASE_QUOTE; symbols without an underscore are refused because the quote would be a guess. */
export function assetsOf(symbol: string): { base: string; quote: string } {
  const i = symbol.indexOf('_');
  if (i <= 0 || i === symbol.length - 1) throw new RangeError(`symbol ${JSON.stringify(symbol)} is not in BASE_QUOTE form`);
  return { base: symbol.slice(0, i), quote: symbol.slice(i + 1) };
}

/** A new flat position. */
export function newPosition(strategy: string, symbol: string): PositionState {
  return new PositionState(strategy, symbol);
}

/** Fee of a fill in quote currency (base-asset fees valued at the fill price; other assets are not convertible here and count 0). */
export function feeInQuote(p: Pick<PositionState, 'baseAsset' | 'quoteAsset'>, f: FillLike): Decimal {
  if (f.commission.isZero() || f.commissionAsset === null) return ZERO;
  if (f.commissionAsset === p.quoteAsset) return f.commission;
  if (f.commissionAsset === p.baseAsset) return f.commission.mul(f.price);
  return ZERO;
}

/**
 * Applies one fill to a position in place (average-cost realized PnL).
 *
 * A commission charged in the base asset leaves the account that much less base (the engine and
 * the exchange take a buy's from the base received), so the position is net of it: the fee is a
 * disposal of that quantity at the fill price whose proceeds are the fee (valued there, counted
 * in `fees`, not in `cash`), realizing (fill price - average) on it like a sale. Then `qty` is
 * what the account holds and net PnL (realized + unrealized - fees) is exactly cash + qty x mark.
 * A quote fee is a cash cost; a fee in a third asset is not convertible here, counts 0 and is
 * part of no position (the fill list names its asset).
 *
 * Every result is the value of the plain formulas (kept in positions.test.ts as the reference and
 * compared value and digits on random fills); the common cases skip operations whose result is
 * known: opening from flat, closing the whole position, a base fee at the average price.
 */
export function applyFill(p: PositionState, f: FillLike): void {
  const buy = f.side === 'BUY';
  if (buy) p.cashSum.sub(f.quoteQty);
  else p.cashSum.add(f.quoteQty);
  p.turnoverSum.add(f.quoteQty);
  p.trades++;
  const price = bigOf(f.price);
  move(p, buy, bigOf(f.qty), price);
  if (f.commissionAsset === p.baseAsset && f.commissionAsset !== p.quoteAsset && !f.commission.isZero()) {
    // A base-asset fee, valued at the fill price: the sum's own exact product (or this very mul
    // when it falls back), so no Decimal is built for it; the base leaves the position at that price.
    p.feesSum.addProduct(f.commission, f.price);
    move(p, false, bigOf(f.commission), price);
  } else {
    const fee = feeInQuote(p, f);
    p.feesSum.add(fee);
    p.cashSum.sub(fee);
  }
}

/**
 * Moves a position by `qty` bought (or sold) at `price`: average cost, realized PnL on what it
 * closes. Each step is the plain formula's decimal.js operation (core/bigDecimal.ts gives the
 * same 40-digit results); steps whose result is known are skipped.
 */
function move(p: PositionState, buy: boolean, qty: BigDec, price: BigDec): void {
  const q = p.qtyBig;
  // |signed|: decimal.js's neg and abs round an input of more than 40 digits, so the formula
  // reads it rounded everywhere except in a buy's q + qty (plus rounds the exact sum).
  const abs = bigRound(qty);
  const newQty = bigPlus(q, buy ? qty : bigNeg(abs));
  const s = bigSign(q);
  if (s === 0 || s > 0 === buy) {
    // Opening or adding: (|q| x avg + |signed| x price) / |newQty|; from flat |q| x avg is 0.
    const ns = bigSign(newQty);
    // A zero quantity from flat (no venue fills nothing) would divide by zero: the price itself.
    if (ns === 0) p.avgBig = price;
    else p.avgBig = bigDiv(bigPlus(bigTimes(s < 0 ? bigNeg(q) : q, p.avgBig), bigTimes(abs, price)), ns < 0 ? bigNeg(newQty) : newQty);
    p.qtyBig = newQty;
    return;
  }
  // Reducing: realize on the closed part; any excess opens the other way at the price.
  const long = s > 0;
  const open = long ? q : bigNeg(q);
  const closing = bigCmp(open, abs) <= 0 ? open : abs;
  const pnlPerUnit = long ? bigMinus(price, p.avgBig) : bigMinus(p.avgBig, price);
  // Nothing realized at the average price itself (a base fee right after opening from flat).
  if (pnlPerUnit.m !== 0n) p.realizedBig = bigPlus(p.realizedBig, bigTimes(pnlPerUnit, closing));
  const ns = bigSign(newQty);
  if (ns === 0) p.avgBig = BIG_ZERO;
  else if (ns > 0 !== long) p.avgBig = price;
  p.qtyBig = newQty;
}

/** Unrealized PnL of a position at `mark`. */
export function unrealized(p: PositionState, mark: Decimal | undefined): Decimal {
  if (p.flat || mark === undefined) return ZERO;
  return mark.minus(p.avgPrice).mul(p.qty);
}

/**
 * Net PnL (realized + unrealized - fees) at `mark` as a {@link BigDec}: the value and digits of
 * netPnl, with each step the same 40-digit operation. The fees are read as the sum's exact value:
 * an equity sample after a fill builds no Decimal of them.
 */
export function netPnlBig(p: PositionState, mark: BigDec | undefined): BigDec {
  const unreal = p.flat || mark === undefined ? BIG_ZERO : bigTimes(bigMinus(mark, p.avgBig), p.qtyBig);
  return bigMinus(bigPlus(p.realizedBig, unreal), p.feesSum.exact ?? bigOf(p.fees));
}

/** Net PnL (realized + unrealized - fees) at `mark`; equals cash + qty x mark. */
export function netPnl(p: PositionState, mark: Decimal | undefined): Decimal {
  return p.realized.plus(unrealized(p, mark)).minus(p.fees);
}
