/**
 * History from the exchange's market REST into kancil's data files: klines into the kline CSV the
 * backtester reads as candles (the exchange's column order, one closed candle a line), aggregate
 * trades into a kancil recording (`<symbol>@aggTrade` envelopes at their trade time). Pages of at
 * most 1,000 (the spec's maximum), one request at a time. Resumable: an existing file is continued
 * after its last kline (or aggregate trade id), so an interrupted download picks up where it
 * stopped; a `.gz` file is continued with a new gzip member (multi-member gzip reads as one). The
 * request budget is the client's (used-weight headers, 429/418 Retry-After): a refused request
 * waits out the block and is sent again, never dropped.
 */
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { gunzipSync, gzipSync } from 'node:zlib';
import { RateLimitedError, ValidationError } from '../core/errors.js';
import { KlineInterval, type KlineIntervalName, type SymbolTypeCode } from '../core/enums.js';
import type { AggTrade, Kline } from '../core/types.js';
import { formatEnvelopeLine, formatHeaderLine } from './format.js';

/** What the downloader needs of the exchange client (OpenClient has it). */
export interface MarketHistory {
  klines(p: { symbol: string; symbolType: SymbolTypeCode; interval: KlineIntervalName; startTime?: number; endTime?: number; limit?: number }): Promise<Kline[]>;
  aggTrades(p: { symbol: string; symbolType: SymbolTypeCode; fromId?: string; startTime?: number; endTime?: number; limit?: number }): Promise<AggTrade[]>;
}

/** One download. */
export interface DownloadJob {
  readonly kind: 'klines' | 'aggTrades';
  readonly symbol: string;
  readonly symbolType: SymbolTypeCode;
  /** Inclusive bounds, epoch ms. */
  readonly from: number;
  readonly to: number;
  readonly interval: KlineIntervalName;
  readonly out: string;
}

/** Progress: how far (ms of the span) the download has come. */
export type DownloadProgress = (doneMs: number, totalMs: number, rows: number) => void;

const PAGE = 1000;
/** An aggregate-trades query by time spans at most this (the spec does not say; an hour is the usual cap). */
const AGG_WINDOW_MS = 3_600_000;

function text(file: string): string {
  if (!existsSync(file)) return '';
  const raw = readFileSync(file);
  return (file.endsWith('.gz') ? gunzipSync(raw) : raw).toString('utf8');
}

/** The last line of a data file that is neither blank nor a `#` comment (gzip read whole); undefined for none or no file. */
export function lastLine(file: string): string | undefined {
  const lines = text(file).split('\n');
  for (let i = lines.length - 1; i >= 0; i--) if ((lines[i] ?? '').trim() !== '' && !(lines[i] ?? '').startsWith('#')) return lines[i];
  return undefined;
}

function append(file: string, body: string): void {
  if (body === '') return;
  appendFileSync(file, file.endsWith('.gz') ? gzipSync(body) : body);
}

/** A retried call: a rate limit's Retry-After is waited out (the client refuses to send before it). */
async function patiently<T>(call: () => Promise<T>, sleep: (ms: number) => Promise<void>): Promise<T> {
  for (;;) {
    try {
      return await call();
    } catch (err) {
      if (!(err instanceof RateLimitedError)) throw err;
      await sleep(Math.max(50, err.retryAfterMs));
    }
  }
}

/** The kline CSV line of a candle (open_time, open, high, low, close, volume, close_time, quote_volume, trades, taker_buy_base, taker_buy_quote, ignore). */
export function klineCsvLine(k: Kline): string {
  return [k.openTime, k.open.toFixed(), k.high.toFixed(), k.low.toFixed(), k.close.toFixed(), k.volume.toFixed(), k.closeTime, k.quoteVolume.toFixed(), k.trades, k.takerBuyBaseVolume.toFixed(), k.takerBuyQuoteVolume.toFixed(), 0].join(',');
}

/** The recording line of an aggregate trade (received at its trade time). */
export function aggTradeLine(symbol: string, a: AggTrade): string {
  const wire = symbol.replace('_', '');
  const data = `{"e":"aggTrade","E":${a.time},"s":"${wire}","a":${a.aggId},"p":"${a.price.toFixed()}","q":"${a.qty.toFixed()}","f":${a.firstTradeId},"l":${a.lastTradeId},"T":${a.time},"m":${a.isBuyerMaker},"M":${a.isBestMatch}}`;
  return formatEnvelopeLine(String(a.time), `${wire.toLowerCase()}@aggTrade`, data);
}

/** Runs a download; resolves to the rows written by this call (0 when the file was already complete). */
export async function download(client: MarketHistory, job: DownloadJob, opts: { onProgress?: DownloadProgress; sleep?: (ms: number) => Promise<void>; now?: () => number } = {}): Promise<number> {
  if (!(job.from <= job.to)) throw new ValidationError('--from', new Date(job.from).toISOString(), `is after --to ${new Date(job.to).toISOString()}`);
  const sleep = opts.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  return job.kind === 'klines' ? downloadKlines(client, job, sleep, opts) : downloadAggTrades(client, job, sleep, opts);
}

async function downloadKlines(client: MarketHistory, job: DownloadJob, sleep: (ms: number) => Promise<void>, opts: { onProgress?: DownloadProgress; now?: () => number }): Promise<number> {
  const step = KlineInterval[job.interval];
  const last = lastLine(job.out);
  let cursor = last === undefined ? job.from : Number(last.split(',')[0]) + step;
  if (!Number.isFinite(cursor)) throw new ValidationError('--out', job.out, 'its last line is not a kline CSV line: not continuing it');
  const now = opts.now ?? Date.now;
  let rows = 0;
  const total = job.to - job.from;
  while (cursor <= job.to) {
    const page = await patiently(() => client.klines({ symbol: job.symbol, symbolType: job.symbolType, interval: job.interval, startTime: cursor, endTime: job.to, limit: PAGE }), sleep);
    // Only closed candles: one still forming would be written with its partial figures.
    const closed = page.filter((k) => k.openTime >= cursor && k.openTime <= job.to && k.closeTime < now());
    append(job.out, closed.map((k) => `${klineCsvLine(k)}\n`).join(''));
    rows += closed.length;
    const lastK = page[page.length - 1];
    if (lastK === undefined || closed.length < page.length || page.length < PAGE) {
      opts.onProgress?.(total, total, rows);
      break;
    }
    cursor = lastK.openTime + step;
    opts.onProgress?.(Math.min(total, cursor - job.from), total, rows);
  }
  return rows;
}

async function downloadAggTrades(client: MarketHistory, job: DownloadJob, sleep: (ms: number) => Promise<void>, opts: { onProgress?: DownloadProgress }): Promise<number> {
  const total = job.to - job.from;
  const last = lastLine(job.out);
  let fromId: bigint | undefined;
  if (last !== undefined) {
    const m = /"a":(\d+)/.exec(last);
    if (m === null) throw new ValidationError('--out', job.out, 'its last line is not an aggregate trade: not continuing it');
    fromId = BigInt(m[1] as string) + 1n;
  }
  // Written with the first trades, not before them: a download that fails (or finds none) leaves no header-only file.
  let header: string | undefined =
    last !== undefined ? undefined : formatHeaderLine({ format: 'kancil-recording', version: 1, createdAt: new Date().toISOString(), source: `kancil download aggTrades ${job.symbol} ${new Date(job.from).toISOString()}..${new Date(job.to).toISOString()}`, symbols: [job.symbol], streams: ['aggTrade'] });
  let rows = 0;
  let windowStart = job.from;
  for (;;) {
    // Until the first trade is known, time windows; then pages by id, which never skip or repeat one.
    const page =
      fromId === undefined
        ? await patiently(() => client.aggTrades({ symbol: job.symbol, symbolType: job.symbolType, startTime: windowStart, endTime: Math.min(job.to, windowStart + AGG_WINDOW_MS - 1), limit: PAGE }), sleep)
        : await patiently(() => client.aggTrades({ symbol: job.symbol, symbolType: job.symbolType, fromId: fromId?.toString(), limit: PAGE }), sleep);
    const inRange = page.filter((a) => a.time >= job.from && a.time <= job.to);
    // formatEnvelopeLine ends its line itself.
    if (inRange.length > 0) {
      if (header !== undefined) append(job.out, header);
      header = undefined;
      append(job.out, inRange.map((a) => aggTradeLine(job.symbol, a)).join(''));
    }
    rows += inRange.length;
    const lastA = page[page.length - 1];
    if (fromId === undefined && lastA === undefined) {
      windowStart += AGG_WINDOW_MS;
      opts.onProgress?.(Math.min(total, windowStart - job.from), total, rows);
      if (windowStart > job.to) break;
      continue;
    }
    // A short page by id is the newest trade there is; a short page of a time window is not the end.
    if (lastA === undefined || lastA.time > job.to || (fromId !== undefined && page.length < PAGE)) {
      opts.onProgress?.(total, total, rows);
      break;
    }
    fromId = BigInt(lastA.aggId) + 1n;
    opts.onProgress?.(Math.min(total, lastA.time - job.from), total, rows);
  }
  return rows;
}
