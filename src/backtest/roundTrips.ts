/**
 * Round trips from a run's fills: each fill that reduces a position closes the oldest open lots
 * first (FIFO) and is one round trip, entry at the quantity-weighted price of the lots it closes,
 * exit at its own price. Lots hold what the account received (a buy's base-asset commission is
 * not part of it), so a strategy selling its whole position closes its lots exactly. Fees of a
 * round trip are the closing fill's plus the share of each entry fill's that the closed quantity
 * carries, in the quote asset (a base-asset fee is valued at its fill's price). Amounts are exact
 * decimals; the statistics over them (win rate, profit factor...) are descriptive floats.
 */
import type { Decimal } from '../core/decimal.js';
import { BIG_ZERO, bigCmp, bigDiv, bigDivProduct, bigMinus, bigNeg, bigPlus, bigTimes, type BigDec } from '../core/bigDecimal.js';
import { bigOfText, bigPrecisionNumber, bigText, bigToPlaces } from '../core/bigDecimalText.js';
import type { ReportFill, RoundTrip } from './result.js';

interface Lot {
  readonly t: number;
  qty: BigDec;
  readonly price: BigDec;
  /** Entry fee per unit of lot quantity, in quote. */
  readonly feePerUnit: BigDec;
}

const HUNDRED: BigDec = { m: 100n, e: 0 };

/** Text of a rounded amount, never "-0". */
export function amountText(d: Decimal, places = 12): string {
  const r = d.toDecimalPlaces(places);
  return r.isZero() ? '0' : r.toFixed();
}

/** Quote value of a fill's commission: a base-asset fee at the fill's price, a quote-asset one as is, another asset's as 0. */
function quoteFee(f: ReportFill, fee: BigDec, price: BigDec, base: string): BigDec {
  if (f.feeAsset === null || f.feeAsset === f.symbol.slice(f.symbol.indexOf('_') + 1)) return fee;
  return f.feeAsset === base ? bigTimes(fee, price) : BIG_ZERO;
}

/** The round trips of `fills` (in time order), grouped by strategy and symbol, in closing order. */
export function roundTrips(fills: Iterable<ReportFill>): RoundTrip[] {
  return [...roundTripsOf(fills)];
}

/** The values a round trip's amount texts print (entryPrice undefined: "NaN"). */
export interface TripAmounts {
  readonly qty: BigDec;
  readonly entryPrice: BigDec | undefined;
  readonly exitPrice: BigDec;
  readonly pnl: BigDec;
  readonly fees: BigDec;
}

/** A round trip and the values of its amount texts (`pnl` is what the trade statistics sum), not read back from the texts. */
export interface PricedTrip {
  readonly trip: RoundTrip;
  readonly pnl: BigDec;
  readonly amounts: TripAmounts;
}

/** Decimals of a trip's PnL, entry price and fees texts. */
const PLACES = 12;

/** {@link roundTrips} one at a time: only the open lots are held. */
export function* roundTripsOf(fills: Iterable<ReportFill>): Generator<RoundTrip> {
  for (const p of pricedTripsOf(fills)) yield p.trip;
}

/**
 * {@link roundTripsOf} with each trip's PnL as a value. Amounts are core/bigDecimal.ts values,
 * each operation rounded as decimal.js rounds it (roundTrips.diff.test.ts holds it to the
 * decimal.js formulas). `onFill` hears each fill before its trip, with the change it makes to the
 * position (perSymbol.ts's positionChange), read once for both.
 */
export function* pricedTripsOf(fills: Iterable<ReportFill>, onFill?: (f: ReportFill, change: BigDec) => void): Generator<PricedTrip> {
  yield* pricedTripsOfValued(valuedFills(fills), onFill);
}

/** A fill with the values of its price, quantity and fee texts, as bigOfText reads them. */
export interface ValuedFill {
  readonly fill: ReportFill;
  readonly price: BigDec;
  readonly qty: BigDec;
  readonly fee: BigDec;
}

/** A fill's values read from its texts. */
export function valuedFill(f: ReportFill): ValuedFill {
  return { fill: f, price: bigOfText(f.price), qty: bigOfText(f.qty), fee: bigOfText(f.fee) };
}

function* valuedFills(fills: Iterable<ReportFill>): Generator<ValuedFill> {
  for (const f of fills) yield valuedFill(f);
}

/** {@link pricedTripsOf} of fills given with their values (a store that holds them as numbers parses no text). */
export function* pricedTripsOfValued(fills: Iterable<ValuedFill>, onFill?: (f: ReportFill, change: BigDec) => void): Generator<PricedTrip> {
  const books = new Map<string, { long: boolean; lots: Lot[] }>();
  for (const v of fills) {
    const f = v.fill;
    const key = `${f.strategy}\u0000${f.symbol}`;
    let b = books.get(key);
    if (b === undefined) books.set(key, (b = { long: f.side === 'BUY', lots: [] }));
    const base = f.symbol.slice(0, f.symbol.indexOf('_'));
    const price = v.price;
    const feeAmount = v.fee;
    // What the position moved by: a buy's base-asset commission never reached the account.
    let qty = v.qty;
    if (f.side === 'BUY' && f.feeAsset === base) qty = bigMinus(qty, feeAmount);
    onFill?.(f, f.side === 'BUY' ? qty : bigNeg(qty));
    const fee = quoteFee(f, feeAmount, price, base);
    const opens = b.lots.length === 0 ? true : (f.side === 'BUY') === b.long;
    if (b.lots.length === 0) b.long = f.side === 'BUY';
    if (opens) {
      if (qty.m > 0n) b.lots.push({ t: f.t, qty, price, feePerUnit: bigDiv(fee, qty) });
      continue;
    }
    // Closes lots FIFO; what is left over opens the other side.
    let left = qty;
    let closed = BIG_ZERO;
    let cost = BIG_ZERO;
    let entryFees = BIG_ZERO;
    let entryT = f.t;
    // The lot and product of the first take, and how many lots were taken (one: see entryPrice).
    let first: { take: BigDec; price: BigDec; product: BigDec } | undefined;
    let takes = 0;
    while (left.m > 0n && b.lots.length > 0) {
      const lot = b.lots[0] as Lot;
      const take = bigCmp(lot.qty, left) <= 0 ? lot.qty : left;
      if (closed.m === 0n) entryT = lot.t;
      closed = bigPlus(closed, take);
      const product = bigTimes(take, lot.price);
      if (takes++ === 0) first = { take, price: lot.price, product };
      cost = bigPlus(cost, product);
      entryFees = bigPlus(entryFees, bigTimes(take, lot.feePerUnit));
      lot.qty = bigMinus(lot.qty, take);
      left = bigMinus(left, take);
      if (lot.qty.m === 0n) b.lots.shift();
    }
    const exitFee = qty.m === 0n ? BIG_ZERO : bigDivProduct(bigTimes(fee, closed), fee, closed, qty);
    const fees = bigPlus(entryFees, exitFee);
    const value = bigTimes(closed, price);
    const gross = b.long ? bigMinus(value, cost) : bigMinus(cost, value);
    const net = bigMinus(gross, fees);
    const pnl = bigToPlaces(net, PLACES);
    // Nothing closed (a zero-quantity fill against the position): 0 / 0, as decimal.js prints it
    // (NaN). One lot: cost is 0 + its product, so cost / closed is product / closed.
    const entryPrice = closed.m === 0n ? undefined : bigToPlaces(takes === 1 && first !== undefined ? bigDivProduct(first.product, first.price, first.take, closed) : bigDiv(cost, closed), PLACES);
    const feesPlaced = bigToPlaces(fees, PLACES);
    const trip: RoundTrip = {
      strategy: f.strategy,
      symbol: f.symbol,
      side: b.long ? 'LONG' : 'SHORT',
      entryT,
      exitT: f.t,
      qty: bigText(closed),
      entryPrice: entryPrice === undefined ? 'NaN' : bigText(entryPrice),
      exitPrice: bigText(price),
      pnl: bigText(pnl),
      fees: bigText(feesPlaced),
      returnPct: cost.m === 0n ? 0 : bigPrecisionNumber(bigTimes(bigDiv(net, cost), HUNDRED), 10),
    };
    yield { trip, pnl, amounts: { qty: closed, entryPrice, exitPrice: price, pnl, fees: feesPlaced } };
    if (left.m > 0n) {
      b.long = f.side === 'BUY';
      b.lots.push({ t: f.t, qty: left, price, feePerUnit: bigDiv(bigMinus(fee, exitFee), left) });
    }
  }
}
