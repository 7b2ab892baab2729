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
import { NumberSpool, RecordSpool } from './spool.js';

/** Columns of a row: time, strategy, symbol, side, fee asset (-1: none), maker, then m and k of price, quantity and fee. */
const WIDTH = 12;
/** Names a run's table holds (a run has a handful); a fill with a name past it keeps its JSON line. */
const MAX_NAMES = 1 << 16;

/** Spool sizes (tests make them small to cover the spill). */
export interface FillStoreOptions {
  readonly chunkRows?: number;
  readonly memChunks?: number;
  readonly bufferBytes?: number;
}

/** Appends fills as they come; reads them back in order as ReportFill records, any number of times. */
export class FillStore implements Iterable<ReportFill> {
  readonly #rows: NumberSpool;
  /** JSON lines of the fills that do not fit a row; a row with m = NaN for the price stands for the next one. */
  readonly #wide: RecordSpool<ReportFill>;
  readonly #lines = new FillLines();
  readonly #names: string[] = [];
  readonly #index = new Map<string, number>();
  readonly #row: number[] = new Array<number>(WIDTH).fill(0);

  constructor(opts: FillStoreOptions = {}) {
    this.#rows = new NumberSpool(WIDTH, opts);
    this.#wide = new RecordSpool<ReportFill>({ parse: parseFillLine, bufferBytes: opts.bufferBytes });
  }

  /** Fills appended. */
  get length(): number {
    return this.#rows.length;
  }

  /** Appends one fill. */
  push(e: FillEvent): void {
    const row = this.#row;
    const strategy = this.#name(e.strategy);
    const symbol = this.#name(e.symbol);
    const side = this.#name(e.side);
    const asset = e.commissionAsset === null ? -1 : this.#name(e.commissionAsset);
    if (!Number.isFinite(e.E) || strategy < 0 || symbol < 0 || side < 0 || (asset < 0 && e.commissionAsset !== null) || !scaled(e.price, row, 6) || !scaled(e.qty, row, 8) || !scaled(e.commission, row, 10)) {
      row.fill(0);
      row[6] = Number.NaN;
      this.#rows.push(row);
      this.#wide.pushLine(this.#lines.line(e));
      return;
    }
    // JSON writes -0 as 0.
    row[0] = e.E + 0;
    row[1] = strategy;
    row[2] = symbol;
    row[3] = side;
    row[4] = asset;
    row[5] = e.isMaker ? 1 : 0;
    this.#rows.push(row);
  }

  /** The index of a name in the table, added when new; -1 when the table is full. */
  #name(s: string): number {
    let i = this.#index.get(s);
    if (i === undefined) {
      if (this.#names.length >= MAX_NAMES) return -1;
      i = this.#names.length;
      this.#names.push(s);
      this.#index.set(s, i);
    }
    return i;
  }

  /** The fills in order (each record built anew). */
  *[Symbol.iterator](): Generator<ReportFill> {
    const names = this.#names;
    let wide: Iterator<ReportFill> | undefined;
    for (const { data, rows } of this.#rows.chunks()) {
      for (let at = 0; at < rows * WIDTH; at += WIDTH) {
        if (Number.isNaN(data[at + 6])) {
          wide ??= this.#wide[Symbol.iterator]();
          yield wide.next().value as ReportFill;
          continue;
        }
        const asset = data[at + 4] as number;
        yield {
          t: data[at] as number,
          strategy: names[data[at + 1] as number] as string,
          symbol: names[data[at + 2] as number] as string,
          side: names[data[at + 3] as number] as ReportFill['side'],
          price: scaledText(data[at + 6] as number, data[at + 7] as number),
          qty: scaledText(data[at + 8] as number, data[at + 9] as number),
          fee: scaledText(data[at + 10] as number, data[at + 11] as number),
          feeAsset: asset < 0 ? null : (names[asset] as string),
          maker: data[at + 5] === 1,
        };
      }
    }
  }

  /** Removes the spill files; the store is empty afterwards. */
  dispose(): void {
    this.#rows.dispose();
    this.#wide.dispose();
  }
}

/** Writes x as m and k into row[at], row[at + 1]; false when it is not finite or m is not a safe integer. */
function scaled(x: Decimal, row: number[], at: number): boolean {
  if (!unpackDecimal(x)) return false;
  row[at] = UNPACKED.m;
  row[at + 1] = UNPACKED.k;
  return true;
}

/** toFixed() of decimal.js for m x 10^k (m a safe integer): every digit, no exponent, no trailing zero, "0" for zero. */
export function scaledText(m: number, k: number): string {
  if (m === 0) return '0';
  const neg = m < 0;
  // A safe integer prints as its digits (no exponent below 10^21).
  let s = String(neg ? -m : m);
  let end = s.length;
  while (end > 1 && s.charCodeAt(end - 1) === 48) end--;
  const e = k + s.length - end;
  if (end < s.length) s = s.slice(0, end);
  if (e >= 0) s = e === 0 ? s : s + '0'.repeat(e);
  else if (-e >= s.length) s = `0.${'0'.repeat(-e - s.length)}${s}`;
  else s = `${s.slice(0, s.length + e)}.${s.slice(s.length + e)}`;
  return neg ? `-${s}` : s;
}
