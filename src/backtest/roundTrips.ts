/**
 * Round trips from a run's fills: each fill that reduces a position closes the oldest open lots
 * first (FIFO) and is one round trip, entry at the quantity-weighted price of the lots it closes,
 * exit at its own price. Lots hold what the account received (a buy's base-asset commission is
 * not part of it), so a strategy selling its whole position closes its lots exactly. Fees of a
 * round trip are the closing fill's plus the share of each entry fill's that the closed quantity
 * carries, in the quote asset (a base-asset fee is valued at its fill's price). Amounts are exact
 * Decimals; the statistics over them (win rate, profit factor...) are descriptive floats.
 */
import { Decimal, ZERO } from '../core/decimal.js';
import type { ReportFill, RoundTrip } from './result.js';

interface Lot {
  readonly t: number;
  qty: Decimal;
  readonly price: Decimal;
  /** Entry fee per unit of lot quantity, in quote. */
  readonly feePerUnit: Decimal;
}

/** Text of a rounded amount, never "-0". */
export function amountText(d: Decimal, places = 12): string {
  const r = d.toDecimalPlaces(places);
  return r.isZero() ? '0' : r.toFixed();
}

/** Quote value of a fill's commission: a base-asset fee at the fill's price, a quote-asset one as is, another asset's as 0. */
function quoteFee(f: ReportFill, price: Decimal, quote: string): Decimal {
  const fee = new Decimal(f.fee);
  if (f.feeAsset === null || f.feeAsset === quote) return fee;
  return f.feeAsset === f.symbol.slice(0, f.symbol.indexOf('_')) ? fee.mul(price) : ZERO;
}

/** The round trips of `fills` (in time order), grouped by strategy and symbol, in closing order. */
export function roundTrips(fills: Iterable<ReportFill>): RoundTrip[] {
  return [...roundTripsOf(fills)];
}

/** {@link roundTrips} one at a time: only the open lots are held. */
export function* roundTripsOf(fills: Iterable<ReportFill>): Generator<RoundTrip> {
  const books = new Map<string, { long: boolean; lots: Lot[] }>();
  for (const f of fills) {
    const key = `${f.strategy}\u0000${f.symbol}`;
    let b = books.get(key);
    if (b === undefined) books.set(key, (b = { long: f.side === 'BUY', lots: [] }));
    const base = f.symbol.slice(0, f.symbol.indexOf('_'));
    const quote = f.symbol.slice(f.symbol.indexOf('_') + 1);
    const price = new Decimal(f.price);
    // What the position moved by: a buy's base-asset commission never reached the account.
    let qty = new Decimal(f.qty);
    if (f.side === 'BUY' && f.feeAsset === base) qty = qty.minus(f.fee);
    const fee = quoteFee(f, price, quote);
    const opens = b.lots.length === 0 ? true : (f.side === 'BUY') === b.long;
    if (b.lots.length === 0) b.long = f.side === 'BUY';
    if (opens) {
      if (qty.gt(0)) b.lots.push({ t: f.t, qty, price, feePerUnit: fee.div(qty) });
      continue;
    }
    // Closes lots FIFO; what is left over opens the other side.
    let left = qty;
    let closed = ZERO;
    let cost = ZERO;
    let entryFees = ZERO;
    let entryT = f.t;
    while (left.gt(0) && b.lots.length > 0) {
      const lot = b.lots[0] as Lot;
      const take = Decimal.min(lot.qty, left);
      if (closed.isZero()) entryT = lot.t;
      closed = closed.plus(take);
      cost = cost.plus(take.mul(lot.price));
      entryFees = entryFees.plus(take.mul(lot.feePerUnit));
      lot.qty = lot.qty.minus(take);
      left = left.minus(take);
      if (lot.qty.isZero()) b.lots.shift();
    }
    const exitFee = qty.isZero() ? ZERO : fee.mul(closed).div(qty);
    const fees = entryFees.plus(exitFee);
    const value = closed.mul(price);
    const gross = b.long ? value.minus(cost) : cost.minus(value);
    const pnl = gross.minus(fees);
    yield {
      strategy: f.strategy,
      symbol: f.symbol,
      side: b.long ? 'LONG' : 'SHORT',
      entryT,
      exitT: f.t,
      qty: closed.toFixed(),
      entryPrice: amountText(cost.div(closed)),
      exitPrice: price.toFixed(),
      pnl: amountText(pnl),
      fees: amountText(fees),
      returnPct: cost.isZero() ? 0 : Number(pnl.div(cost).mul(100).toPrecision(10)),
    };
    if (left.gt(0)) {
      b.long = f.side === 'BUY';
      b.lots.push({ t: f.t, qty: left, price, feePerUnit: fee.minus(exitFee).div(left) });
    }
  }
}
