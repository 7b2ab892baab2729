/**
 * A run's fills as rows of numbers: the time, the names as indexes into a small table, and the
 * price, quantity and fee as scaled integers (m x 10^k, m a safe integer), spooled like the equity
 * samples (bounded memory, spilled to disk past it). A month of minute bars fills 30k times: a
 * row costs no decimal.js text, no JSON line to write and none to parse back, and the record read
 * back is the one JSON.parse(JSON.stringify(ReportFill)) gives. A fill whose values do not fit
 * (more digits than a safe integer, a non-finite time or amount, past the names' table) keeps its
 * JSON line in a spool of its own, read back in its place.
 */
import type { FillEvent } from '../bus/events.js';
import type { Decimal } from '../core/decimal.js';
import { UNPACKED, unpackDecimal } from '../core/decimalNumber.js';
import { FillLines, parseFillLine } from './fillLine.js';
import type { ReportFill } from './result.js';
import { valuedFill, type ValuedFill } from './roundTrips.js';
import { BIG_ZERO, bigPow10, type BigDec } from '../core/bigDecimal.js';
import { numberText } from '../core/bigDecimalText.js';
import { RowStore, type RowStoreOptions } from './rowStore.js';

/** Columns of a row: time, strategy, symbol, side, fee asset (-1: none), maker, then m and k of price, quantity and fee. */
const WIDTH = 12;
/** Column of the price's m: NaN in a row that stands for a JSON line. */
const PRICE = 6;

/** Appends fills as they come; reads them back in order as ReportFill records, any number of times. */
export class FillStore extends RowStore<ReportFill> {
  readonly #lines = new FillLines();

  constructor(opts: RowStoreOptions = {}) {
    super(WIDTH, PRICE, { ...opts, parse: parseFillLine });
  }

  /** Appends one fill. */
  push(e: FillEvent): void {
    const { row, names } = this;
    const strategy = names.index(e.strategy);
    const symbol = names.index(e.symbol);
    const side = names.index(e.side);
    const asset = e.commissionAsset === null ? -1 : names.index(e.commissionAsset);
    if (!Number.isFinite(e.E) || strategy < 0 || symbol < 0 || side < 0 || (asset < 0 && e.commissionAsset !== null) || !scaled(e.price, row, PRICE) || !scaled(e.qty, row, PRICE + 2) || !scaled(e.commission, row, PRICE + 4)) {
      this.pushWide(this.#lines.line(e));
      return;
    }
    // JSON writes -0 as 0.
    row[0] = e.E + 0;
    row[1] = strategy;
    row[2] = symbol;
    row[3] = side;
    row[4] = asset;
    row[5] = e.isMaker ? 1 : 0;
    this.pushRow();
  }

  /** The fills in order with their price, quantity and fee values (in bigOfText's form of their texts). */
  valued(): Generator<ValuedFill> {
    return this.rowsOf((data, at) => {
      const x = at + PRICE;
      return { fill: this.read(data, at), price: bigOfScaled(data[x] as number, data[x + 1] as number), qty: bigOfScaled(data[x + 2] as number, data[x + 3] as number), fee: bigOfScaled(data[x + 4] as number, data[x + 5] as number) };
    }, valuedFill);
  }

  protected read(data: Float64Array, at: number): ReportFill {
    const names = this.names;
    const asset = data[at + 4] as number;
    const x = at + PRICE;
    return {
      t: data[at] as number,
      strategy: names.name(data[at + 1] as number),
      symbol: names.name(data[at + 2] as number),
      side: names.name(data[at + 3] as number) as ReportFill['side'],
      price: numberText(data[x] as number, data[x + 1] as number),
      qty: numberText(data[x + 2] as number, data[x + 3] as number),
      fee: numberText(data[x + 4] as number, data[x + 5] as number),
      feeAsset: asset < 0 ? null : names.name(asset),
      maker: data[at + 5] === 1,
    };
  }
}

/** Writes x as m and k into row[at], row[at + 1]; false when it is not finite or m is not a safe integer. */
function scaled(x: Decimal, row: number[], at: number): boolean {
  if (!unpackDecimal(x)) return false;
  row[at] = UNPACKED.m;
  row[at + 1] = UNPACKED.k;
  return true;
}

/**
 * m x 10^k (m a safe integer without trailing zeros, as unpackDecimal gives it) in the form
 * bigOfText gives for its text: the fraction's digits in m, or the whole integer with e = 0.
 */
function bigOfScaled(m: number, k: number): BigDec {
  if (m === 0) return BIG_ZERO;
  if (k < 0) return { m: BigInt(m), e: k };
  return { m: BigInt(m) * bigPow10(k), e: 0 };
}
