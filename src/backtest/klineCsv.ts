/**
 * Kline CSV files (the exchange's historical-data layout, no header):
 *   open_time, open, high, low, close, volume, close_time, quote_volume, trades,
 *   taker_buy_base, taker_buy_quote, ignore
 * read as closed KlineEvents, streamed (gzip or plain) with flat memory. Times in µs (16 digits,
 * newer files) are converted to ms. The event time E of a bar is its close time: a bar is
 * only known once it has closed, so a strategy cannot see a bar before its end.
 */
import { Decimal } from '../core/decimal.js';
import { ParseError } from '../core/errors.js';
import type { KlineIntervalName } from '../core/enums.js';
import type { KlineEvent } from '../core/marketEvents.js';
import { type ByteCount, readLines } from '../record/line-reader.js';

function time(field: string, s: string | undefined): number {
  if (s === undefined || !/^\d+$/.test(s)) throw new ParseError(field, s, 'expected an integer time');
  // 16-digit values are microseconds (files from 2025 on); keep ms everywhere.
  return s.length >= 16 ? Math.floor(Number(s) / 1000) : Number(s);
}

/** True when `s` is a plain non-negative decimal (digits with at most one dot): checked without a regex. */
function isPlainDecimal(s: string | undefined): s is string {
  if (s === undefined || s.length === 0) return false;
  let dot = false;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 46) {
      if (dot) return false;
      dot = true;
    } else if (c < 48 || c > 57) return false;
  }
  return true;
}

const FIELDS = ['open', 'high', 'low', 'close', 'volume', 'quote_volume', 'taker_buy_base', 'taker_buy_quote'] as const;
const COLUMN = [1, 2, 3, 4, 5, 7, 9, 10] as const;

/**
 * A closed kline whose decimal fields are validated when the line is read but converted to Decimal
 * only when first read (then cached): a bar strategy typically reads one or two of eight fields,
 * and the conversion dominates the cost of a bar.
 */
class CsvKline implements KlineEvent {
  readonly type = 'kline' as const;
  readonly firstTradeId = undefined;
  readonly lastTradeId = undefined;
  readonly closed = true;
  readonly #raw: readonly string[];
  readonly #dec: (Decimal | undefined)[];
  /**
   * Nearest doubles of the open, high, low and close, from the texts (as Number(x.toFixed())):
   * drawn in reports and read by indicators, never traded on. Converted when the line is read,
   * into plain fields: a backtest's chart reads all four of every bar, and a getter's cached
   * private field cost ~25 ns a read against a field's load (~70 ms a million bars).
   */
  readonly openNumber: number;
  readonly highNumber: number;
  readonly lowNumber: number;
  readonly closeNumber: number;

  constructor(
    readonly symbol: string,
    readonly interval: KlineIntervalName,
    readonly openTime: number,
    readonly closeTime: number,
    readonly trades: number,
    raw: readonly string[],
    dec: (Decimal | undefined)[] = [],
  ) {
    this.#raw = raw;
    this.#dec = dec;
    this.openNumber = Number(raw[0]);
    this.highNumber = Number(raw[1]);
    this.lowNumber = Number(raw[2]);
    this.closeNumber = Number(raw[3]);
  }

  get E(): number {
    return this.closeTime;
  }

  #get(i: number): Decimal {
    return (this.#dec[i] ??= new Decimal(this.#raw[i] as string));
  }

  get open(): Decimal {
    return this.#get(0);
  }
  get high(): Decimal {
    return this.#get(1);
  }
  get low(): Decimal {
    return this.#get(2);
  }
  get close(): Decimal {
    return this.#get(3);
  }
  get volume(): Decimal {
    return this.#get(4);
  }
  get quoteVolume(): Decimal {
    return this.#get(5);
  }
  get takerBuyBaseVolume(): Decimal {
    return this.#get(6);
  }
  get takerBuyQuoteVolume(): Decimal {
    return this.#get(7);
  }

  /** This bar `offsetMs` later, sharing its texts and the decimals already converted (or converted later). */
  shifted(offsetMs: number): CsvKline {
    return new CsvKline(this.symbol, this.interval, this.openTime + offsetMs, this.closeTime + offsetMs, this.trades, this.#raw, this.#dec);
  }

  /** Plain-object form (tests, logs): every field materialised. */
  toJSON(): Record<string, unknown> {
    return { type: this.type, E: this.E, symbol: this.symbol, interval: this.interval, openTime: this.openTime, closeTime: this.closeTime, open: this.open, high: this.high, low: this.low, close: this.close, volume: this.volume, quoteVolume: this.quoteVolume, trades: this.trades, takerBuyBaseVolume: this.takerBuyBaseVolume, takerBuyQuoteVolume: this.takerBuyQuoteVolume, closed: true };
  }
}

/** Parses one CSV line to a closed kline of `symbol`/`interval`; undefined for blank/header lines. */
export function parseKlineCsvLine(line: string, symbol: string, interval: KlineIntervalName): KlineEvent | undefined {
  if (line.length === 0 || !(line.charCodeAt(0) >= 48 && line.charCodeAt(0) <= 57)) return undefined;
  const f = line.split(',');
  if (f.length < 11) throw new ParseError('kline', line.slice(0, 80), `expected at least 11 columns, got ${f.length}`);
  const openTime = time('open_time', f[0]);
  const closeTime = time('close_time', f[6]);
  const trades = Number(f[8]);
  if (!Number.isSafeInteger(trades)) throw new ParseError('trades', f[8], 'expected an integer');
  const raw: string[] = [];
  for (let i = 0; i < COLUMN.length; i++) {
    const v = f[COLUMN[i] as number];
    // Validated now so a bad file fails at the edge with the field named, not inside a strategy.
    if (!isPlainDecimal(v)) throw new ParseError(FIELDS[i] as string, v, 'expected a non-negative decimal');
    raw.push(v);
  }
  return new CsvKline(symbol, interval, openTime, closeTime, trades, raw);
}

/**
 * A bar the CSV reader yielded, `offsetMs` later: the same kind of object a real run gets, sharing
 * the decimals already parsed, so a benchmark can repeat a month of bars without parsing it again.
 */
export function shiftedCsvKline(k: KlineEvent, offsetMs: number): KlineEvent {
  if (!(k instanceof CsvKline)) throw new TypeError(`shiftedCsvKline: expected a bar read by parseKlineCsvLine, got ${k.constructor.name}`);
  return k.shifted(offsetMs);
}

/** Streams the bars of one or more kline CSV files in file order; `count` (optional) gets the files' bytes as read. */
export async function* readKlineCsv(paths: string | readonly string[], symbol: string, interval: KlineIntervalName, count?: ByteCount): AsyncGenerator<KlineEvent> {
  for (const file of typeof paths === 'string' ? [paths] : paths) {
    let lineNo = 0;
    for await (const line of readLines(file, count)) {
      lineNo++;
      let k: KlineEvent | undefined;
      try {
        k = parseKlineCsvLine(line, symbol, interval);
      } catch (err) {
        throw new ParseError(`${file}:${lineNo}`, line.slice(0, 80), (err as Error).message);
      }
      if (k) yield k;
    }
  }
}
