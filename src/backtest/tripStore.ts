/**
 * A run's round trips as rows of numbers, as fillStore.ts keeps fills: times, name indexes, the
 * return and the amounts as scaled integers (m x 10^e, m a safe integer), spooled (bounded
 * memory). A month of minute bars closes 15k trips at the end of the run: a row costs no JSON line
 * to write, and the record read back is the one JSON.parse(JSON.stringify(RoundTrip)) gives. A
 * trip whose values do not fit keeps its JSON line in a spool of its own, read back in its place.
 */
import type { BigDec } from '../core/bigDecimal.js';
import { numberText } from '../core/bigDecimalText.js';
import type { RoundTrip } from './result.js';
import type { TripAmounts } from './roundTrips.js';
import { RowStore, type RowStoreOptions } from './rowStore.js';
import { TripLines } from './tripLine.js';

/** Columns: entry and exit time, strategy, symbol, side, return, then m and e of qty, entry price, exit price, pnl, fees. */
const WIDTH = 16;
/** Column of the first amount's m. */
const AMOUNTS = 6;
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/** Appends round trips as they close; reads them back in order, any number of times. */
export class TripStore extends RowStore<RoundTrip> {
  readonly #lines = new TripLines();

  /** A row whose entry time is NaN stands for a JSON line. */
  constructor(opts: RowStoreOptions = {}) {
    super(WIDTH, 0, opts);
  }

  /** Appends a trip, given with the values its amount texts print. */
  push(trip: RoundTrip, a: TripAmounts): void {
    const { row, names } = this;
    const strategy = names.index(trip.strategy);
    const symbol = names.index(trip.symbol);
    const side = names.index(trip.side);
    const fits = Number.isFinite(trip.entryT) && Number.isFinite(trip.exitT) && Number.isFinite(trip.returnPct) && strategy >= 0 && symbol >= 0 && side >= 0;
    if (!fits || !put(row, 0, a.qty) || !put(row, 1, a.entryPrice) || !put(row, 2, a.exitPrice) || !put(row, 3, a.pnl) || !put(row, 4, a.fees)) {
      this.pushWide(this.#lines.line(trip));
      return;
    }
    // JSON writes -0 as 0.
    row[0] = trip.entryT + 0;
    row[1] = trip.exitT + 0;
    row[2] = strategy;
    row[3] = symbol;
    row[4] = side;
    row[5] = trip.returnPct + 0;
    this.pushRow();
  }

  protected read(data: Float64Array, at: number): RoundTrip {
    const names = this.names;
    const x = at + AMOUNTS;
    return {
      strategy: names.name(data[at + 2] as number),
      symbol: names.name(data[at + 3] as number),
      side: names.name(data[at + 4] as number) as RoundTrip['side'],
      entryT: data[at] as number,
      exitT: data[at + 1] as number,
      qty: numberText(data[x] as number, data[x + 1] as number),
      entryPrice: numberText(data[x + 2] as number, data[x + 3] as number),
      exitPrice: numberText(data[x + 4] as number, data[x + 5] as number),
      pnl: numberText(data[x + 6] as number, data[x + 7] as number),
      fees: numberText(data[x + 8] as number, data[x + 9] as number),
      returnPct: data[at + 5] as number,
    };
  }
}

/** Writes amount `i` (m and e) into the row; false when there is none (a NaN entry price) or m is not a safe integer. */
function put(row: number[], i: number, x: BigDec | undefined): boolean {
  if (x === undefined || x.m > MAX_SAFE || x.m < -MAX_SAFE) return false;
  row[AMOUNTS + 2 * i] = Number(x.m);
  row[AMOUNTS + 2 * i + 1] = x.e;
  return true;
}
