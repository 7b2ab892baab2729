/**
 * What `kancil download` reads and writes around the download itself: the exchange's hosts (flags,
 * a file — a kancil run config's `exchange:` section or the JSON line `kancil sandbox` prints —
 * then KANCIL_* variables), and a backtest config over the downloaded file that runs as is.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { ValidationError } from '../core/errors.js';
import { lastLine, type DownloadJob } from '../record/download.js';

/** The hosts a download talks to. */
export interface DownloadHosts {
  readonly baseUrl: string;
  readonly marketUrl: string;
  readonly depthUrl: string;
}

const URL_RE = /^https?:\/\/\S+$/;

/** The `base_url`/`market_url`/`depth_url` of a run config's exchange section or of the sandbox's JSON line. */
function hostsInFile(file: string): Partial<Record<'base_url' | 'market_url' | 'depth_url', string>> {
  let doc: unknown;
  try {
    // A JSON line is YAML too: one parser reads both.
    doc = parse(readFileSync(file, 'utf8'), { maxAliasCount: 100 });
  } catch (err) {
    throw new ValidationError('--exchange', file, `cannot read it as YAML or JSON (${(err as Error).message})`);
  }
  const rec = typeof doc === 'object' && doc !== null ? (doc as Record<string, unknown>) : {};
  const section = typeof rec.exchange === 'object' && rec.exchange !== null ? (rec.exchange as Record<string, unknown>) : rec;
  const out: Partial<Record<'base_url' | 'market_url' | 'depth_url', string>> = {};
  for (const k of ['base_url', 'market_url', 'depth_url'] as const) {
    const v = section[k];
    if (v === undefined) continue;
    if (typeof v !== 'string' || !URL_RE.test(v)) throw new ValidationError(`--exchange ${file}: ${k}`, v, 'expected an http(s):// URL');
    out[k] = v;
  }
  if (out.base_url === undefined) throw new ValidationError('--exchange', file, 'has no base_url (neither an exchange: section with one nor the sandbox JSON line)');
  return out;
}

/**
 * Flags win, then the --exchange file, then KANCIL_* variables; the market and depth hosts fall
 * back to the base URL (one address is enough for an exchange that serves all three there).
 */
export function exchangeHosts(values: { readonly exchange?: string; readonly 'base-url'?: string; readonly 'market-url'?: string; readonly 'depth-url'?: string }, env: Readonly<Record<string, string | undefined>>): DownloadHosts {
  const f = values.exchange === undefined ? {} : hostsInFile(path.resolve(values.exchange));
  const baseUrl = values['base-url'] ?? f.base_url ?? env.KANCIL_BASE_URL;
  if (baseUrl === undefined) throw new ValidationError('--base-url', undefined, 'is required (or --exchange FILE, or set KANCIL_BASE_URL)');
  return {
    baseUrl,
    marketUrl: values['market-url'] ?? f.market_url ?? env.KANCIL_MARKET_URL ?? baseUrl,
    depthUrl: values['depth-url'] ?? f.depth_url ?? env.KANCIL_DEPTH_URL ?? baseUrl,
  };
}

/** A symbol's entry of a config's `symbols:` section: its type and its filters as the exchange lists them. */
export interface WireSymbol {
  readonly symbolType: number;
  readonly filters: readonly Record<string, unknown>[];
}

/**
 * The symbol as GET /open/v1/common/symbols lists it (`data.list`), filters as sent: a tick
 * replay needs them, and the exchange's own are the ones its orders would meet. Undefined when
 * the exchange does not list it.
 */
export async function wireSymbol(baseUrl: string, symbol: string, timeoutMs = 10_000): Promise<WireSymbol | undefined> {
  const res = await fetch(new URL('/open/v1/common/symbols', baseUrl), { signal: AbortSignal.timeout(timeoutMs) });
  if (!res.ok) throw new ValidationError('--base-url', baseUrl, `GET /open/v1/common/symbols answered ${res.status}`);
  const body = (await res.json()) as { data?: { list?: unknown } };
  const list = Array.isArray(body.data?.list) ? (body.data.list as Record<string, unknown>[]) : [];
  const s = list.find((x) => x.symbol === symbol);
  if (s === undefined || !Array.isArray(s.filters)) return undefined;
  return { symbolType: typeof s.symbolType === 'number' ? s.symbolType : 1, filters: s.filters as Record<string, unknown>[] };
}

/** The last price in a downloaded file (a kline's close, an aggregate trade's price); undefined when it has none. */
function lastPrice(file: string, kind: DownloadJob['kind']): number | undefined {
  const last = lastLine(file);
  if (last === undefined) return undefined;
  const p = kind === 'klines' ? Number(last.split(',')[4]) : Number(/"p":"([0-9.]+)"/.exec(last)?.[1]);
  return Number.isFinite(p) && p > 0 ? p : undefined;
}

/** 10^k as decimal text (k may be negative): "0.001", "1", "1000". */
function pow10Text(k: number): string {
  return k >= 0 ? `1${'0'.repeat(k)}` : `0.${'0'.repeat(-k - 1)}1`;
}

/**
 * A backtest config (YAML) over a download that runs as is: the example SMA crossover on the
 * candles (klines) or on 1-minute bars built from the aggregate trades (aggTrades), an order size
 * of about 1,000 quote units at the last price, and a budget of a hundred orders. Paths are
 * relative to the config's own folder, so the two files can move together.
 */
export function backtestConfigFor(job: DownloadJob, configFile: string, symbol: WireSymbol | undefined): string {
  const data = path.relative(path.dirname(configFile), job.out) || path.basename(job.out);
  const quote = job.symbol.slice(job.symbol.indexOf('_') + 1);
  const price = lastPrice(job.out, job.kind) ?? 1;
  const qtyExp = Math.floor(Math.log10(1000 / price));
  const budgetExp = Math.max(0, Math.ceil(Math.log10(price * 10 ** qtyExp * 100)));
  const interval = job.kind === 'klines' ? job.interval : '1m';
  const source =
    job.kind === 'klines'
      ? `  candles:\n    - { symbol: ${job.symbol}, interval: ${job.interval}, files: [${JSON.stringify(data)}] }`
      : `  recordings:\n    - { symbol: ${job.symbol}, files: [${JSON.stringify(data)}] }`;
  return `# Written by kancil download: a backtest of ${job.kind} ${job.symbol} ${new Date(job.from).toISOString()} .. ${new Date(job.to).toISOString()}.
# Run it with: kancil backtest ${path.basename(configFile)}
${job.kind === 'aggTrades' ? '# Aggregate trades carry no order book: the strategy gets bars, but its MARKET orders are refused\n# (BOOK_NOT_READY) until depth is recorded with them (kancil record), or use candles (download klines).\n' : ''}mode: backtest
name: ${job.symbol.toLowerCase()}-${job.kind === 'klines' ? job.interval : 'aggTrades'}
${symbol === undefined ? '' : `symbols:\n  ${job.symbol}:\n    symbolType: ${symbol.symbolType}\n    filters:\n${symbol.filters.map((f) => `      - ${JSON.stringify(f)}`).join('\n')}\n`}strategies:
  - name: sma
    plugin: sma-crossover
    symbols: [${job.symbol}]
    budget: { ${quote}: "${pow10Text(budgetExp)}" }
    params: { fast: 10, slow: 50, kind: SMA, interval: ${interval}, quantity: "${pow10Text(qtyExp)}" }
backtest:
${source}
`;
}
