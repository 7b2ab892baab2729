/**
 * Exact position and PnL accounting per (strategy, symbol), average-cost method, in the quote
 * currency. Fees are converted to quote at the fill price when charged in the base asset (and
 * leave the position, see applyFill), and are kept apart from realized PnL so gross and net can
 * both be reported.
 */
import { Decimal, ZERO, fitsPrecision } from '../core/decimal.js';
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
 * sums (realized, fees, cash, turnover) are {@link DecimalSum}s: a fill adds to them without
 * building Decimals while they stay small, and they read as the Decimals the plain loop gives.
 */
export class PositionState {
  readonly baseAsset: string;
  readonly quoteAsset: string;
  qty: Decimal = ZERO;
  /** Average entry price of the open quantity (0 when flat). */
  avgPrice: Decimal = ZERO;
  trades = 0;
  readonly realizedSum = new DecimalSum();
  readonly feesSum = new DecimalSum();
  readonly cashSum = new DecimalSum();
  readonly turnoverSum = new DecimalSum();

  constructor(
    readonly strategy: string,
    readonly symbol: string,
  ) {
    const { base, quote } = assetsOf(symbol);
    this.baseAsset = base;
    this.quoteAsset = quote;
  }

  /** Realized PnL (average cost), gross of fees. */
  get realized(): Decimal {
    return this.realizedSum.value;
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
  move(p, buy, f.qty, f.price);
  if (f.commissionAsset === p.baseAsset && f.commissionAsset !== p.quoteAsset && !f.commission.isZero()) {
    // A base-asset fee, valued at the fill price: the sum's own exact product (or this very mul
    // when it falls back), so no Decimal is built for it; the base leaves the position at that price.
    p.feesSum.addProduct(f.commission, f.price);
    move(p, false, f.commission, f.price);
  } else {
    const fee = feeInQuote(p, f);
    p.feesSum.add(fee);
    p.cashSum.sub(fee);
  }
}

/** Moves a position by `qty` bought (or sold) at `price`: average cost, realized PnL on what it closes. */
function move(p: PositionState, buy: boolean, qty: Decimal, price: Decimal): void {
  const q = p.qty;
  if (q.isZero()) {
    // Opening from flat: (0 x avg + qty x price) / qty is the price itself whenever qty x price
    // is exact at the configured precision (then so is the division); else the formula's rounding.
    p.qty = buy ? qty : qty.neg();
    p.avgPrice = qty.sd() + price.sd() <= Decimal.precision ? price : qty.mul(price).div(qty);
    return;
  }
  const long = q.isPositive();
  if (long === buy) {
    // Adding to a position: new weighted average. |x| of a long position is x itself (abs() would
    // copy it and round a value of more than 40 digits, which no result of plus/minus has).
    const newQty = buy ? q.plus(qty) : q.minus(qty);
    const absQ = long && fitsPrecision(q) ? q : q.abs();
    const absNew = long ? newQty : newQty.abs();
    p.avgPrice = absQ.mul(p.avgPrice).plus(qty.mul(price)).div(absNew);
    p.qty = newQty;
    return;
  }
  // Reducing: realize on the closed part; any excess opens the other way at the price.
  const open = long ? q : q.neg();
  const c = open.cmp(qty);
  const closing = c <= 0 ? open : qty;
  // At the average price itself (a base fee right after opening from flat) nothing is realized.
  if (price !== p.avgPrice) {
    const pnlPerUnit = long ? price.minus(p.avgPrice) : p.avgPrice.minus(price);
    // addProduct: the sum's own exact product (or this very mul when it falls back), no Decimal built.
    p.realizedSum.addProduct(pnlPerUnit, closing);
  }
  if (c === 0) {
    // Closed exactly: q + signed is 0.
    p.qty = ZERO;
    p.avgPrice = ZERO;
    return;
  }
  const newQty = buy ? q.plus(qty) : q.minus(qty);
  if (c < 0) p.avgPrice = price;
  p.qty = newQty;
}

/** Unrealized PnL of a position at `mark`. */
export function unrealized(p: PositionState, mark: Decimal | undefined): Decimal {
  if (p.qty.isZero() || mark === undefined) return ZERO;
  return mark.minus(p.avgPrice).mul(p.qty);
}

/** Net PnL (realized + unrealized - fees) at `mark`; equals cash + qty x mark. */
export function netPnl(p: PositionState, mark: Decimal | undefined): Decimal {
  return p.realized.plus(unrealized(p, mark)).minus(p.fees);
}
