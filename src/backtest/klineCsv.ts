/**
 * Kline CSV files (the exchange's historical-data layout, no header):
 *   open_time, open, high, low, close, volume, close_time, quote_volume, trades,
 *   taker_buy_base, taker_buy_quote, ignore
 * read as closed KlineEvents, streamed (gzip or plain) with flat memory. Times in µs (16 digits,
 * newer files) are converted to ms. The event time E of a bar is its close time: a bar is
 * only known once it has closed, so a strategy cannot see a bar before its end.
 */
import { parseDecimal } from '../core/decimal.js';
import { ParseError } from '../core/errors.js';
import type { KlineIntervalName } from '../core/enums.js';
import type { KlineEvent } from '../core/marketEvents.js';
import { readLines } from '../record/line-reader.js';

function time(field: string, s: string | undefined): number {
  if (s === undefined || !/^\d+$/.test(s)) throw new ParseError(field, s, 'expected an integer time');
  // 16-digit values are microseconds (files from 2025 on); keep ms everywhere.
  return s.length >= 16 ? Math.floor(Number(s) / 1000) : Number(s);
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
  return {
    type: 'kline',
    E: closeTime,
    symbol,
    interval,
    openTime,
    closeTime,
    firstTradeId: -1,
    lastTradeId: -1,
    open: parseDecimal('open', f[1]),
    high: parseDecimal('high', f[2]),
    low: parseDecimal('low', f[3]),
    close: parseDecimal('close', f[4]),
    volume: parseDecimal('volume', f[5]),
    quoteVolume: parseDecimal('quote_volume', f[7]),
    trades,
    takerBuyBaseVolume: parseDecimal('taker_buy_base', f[9]),
    takerBuyQuoteVolume: parseDecimal('taker_buy_quote', f[10]),
    closed: true,
  };
}

/** Streams the bars of one or more kline CSV files in file order. */
export async function* readKlineCsv(paths: string | readonly string[], symbol: string, interval: KlineIntervalName): AsyncGenerator<KlineEvent> {
  for (const file of typeof paths === 'string' ? [paths] : paths) {
    let lineNo = 0;
    for await (const line of readLines(file)) {
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
