/**
 * `kancil download klines|aggTrades --symbol S --from T --to T [--interval 1m] [--out FILE]`:
 * history from the exchange's market REST (`--market-url`, or KANCIL_MARKET_URL / KANCIL_BASE_URL;
 * `--depth-url` for symbol type 3) into kancil's data files, resumable, with a progress bar
 * (src/record/download.ts does the work).
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { Presets, SingleBar } from 'cli-progress';
import { ValidationError } from '../core/errors.js';
import { isKlineInterval, type SymbolTypeCode } from '../core/enums.js';
import { OpenClient } from '../exchange/index.js';
import { download } from '../record/download.js';
import { backtestConfigFor, exchangeHosts, wireSymbol } from './downloadConfig.js';
import { intOption, parseCommandArgs } from './args.js';
import { ExitCode, type CliIO, type Command } from './command.js';
import { outputDirProblem } from './outputDir.js';

const USAGE = `Usage: kancil download klines|aggTrades --symbol BTC_IDR --from TIME --to TIME [options]

Downloads market history from the exchange's REST API, in pages of 1,000, within its request
weights (a 429 or 418 is waited out), into kancil's data files:
  klines     a kline CSV (open_time, open, high, low, close, volume, ...), closed candles only:
             use it as backtest.candles[].files
  aggTrades  a kancil recording of <symbol>@aggTrade lines: use it as backtest.recordings[].files
An existing --out file is continued after its last row, so an interrupted download resumes.
TIME: ISO 8601 (2024-08-01, 2024-08-01T12:00:00Z) or epoch ms; both bounds inclusive.

Options:
  --symbol S         BASE_QUOTE symbol (required)
  --from, --to TIME  the span (required)
  --interval I       kline interval (default 1m)
  --symbol-type N    1 (default) or 3: which market host serves the symbol
  --out FILE         output file (.gz compresses; default <symbol>-<interval|aggTrades>-<from>-<to>.csv.gz or .rec.gz)
  --exchange FILE    take the hosts from a file: a kancil run config (its exchange: section)
                     or the JSON line \`kancil sandbox\` prints (base_url, market_url, depth_url)
  --config-out FILE  also write a backtest config (YAML) over the downloaded file that runs as
                     is: \`kancil backtest FILE\` (sma-crossover on the candles, or on bars built
                     from the aggregate trades)
  --base-url URL     REST host (env KANCIL_BASE_URL)
  --market-url URL   market-data host of type 1 symbols (env KANCIL_MARKET_URL; default: base URL)
  --depth-url URL    market-data host of type 3 symbols (env KANCIL_DEPTH_URL; default: base URL)
  --quiet            no progress bar
  -h, --help         this text`;

function time(name: string, v: string | undefined): number {
  if (v === undefined) throw new ValidationError(`--${name}`, v, 'is required');
  const t = /^\d+$/.test(v) ? Number(v) : Date.parse(v);
  if (!Number.isFinite(t)) throw new ValidationError(`--${name}`, v, 'expected ISO 8601 (2024-08-01T00:00:00Z) or epoch ms');
  return t;
}

async function run(argv: readonly string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseCommandArgs(
    argv,
    {
      symbol: { type: 'string' },
      from: { type: 'string' },
      to: { type: 'string' },
      interval: { type: 'string' },
      'symbol-type': { type: 'string' },
      out: { type: 'string' },
      'base-url': { type: 'string' },
      'market-url': { type: 'string' },
      'depth-url': { type: 'string' },
      exchange: { type: 'string' },
      'config-out': { type: 'string' },
      quiet: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
    true,
  );
  const kind = positionals[0];
  if ((kind !== 'klines' && kind !== 'aggTrades') || positionals.length !== 1) throw new ValidationError('arguments', positionals.join(' '), 'expected klines or aggTrades');
  const symbol = values.symbol;
  if (symbol === undefined || !/^[A-Z0-9]+_[A-Z0-9]+$/.test(symbol)) throw new ValidationError('--symbol', symbol, 'expected BASE_QUOTE, e.g. BTC_IDR');
  const interval = values.interval ?? '1m';
  if (!isKlineInterval(interval)) throw new ValidationError('--interval', interval, 'not a kline interval (1m, 5m, 1h, 1d, ...)');
  const from = time('from', values.from);
  const to = time('to', values.to);
  if (from > to) throw new ValidationError('--from', values.from, `is after --to ${values.to ?? ''}`);
  const symbolType = intOption('symbol-type', values['symbol-type'], 1);
  if (symbolType !== 1 && symbolType !== 3) throw new ValidationError('--symbol-type', values['symbol-type'], 'must be 1 or 3');
  const day = (t: number): string => new Date(t).toISOString().replace(/[:]/g, '').replace(/\.\d+Z$/, 'Z');
  const out = path.resolve(values.out ?? `${symbol.toLowerCase()}-${kind === 'klines' ? interval : 'aggTrades'}-${day(from)}-${day(to)}.${kind === 'klines' ? 'csv' : 'rec'}.gz`);
  const problem = outputDirProblem(path.dirname(out));
  if (problem !== undefined) throw new ValidationError('--out', out, `its folder ${problem}`);
  const configOut = values['config-out'] === undefined ? undefined : path.resolve(values['config-out']);
  if (configOut !== undefined) {
    const p = outputDirProblem(path.dirname(configOut));
    if (p !== undefined) throw new ValidationError('--config-out', configOut, `its folder ${p}`);
  }
  const hosts = exchangeHosts(values, io.env);
  const client = new OpenClient(hosts);
  const bar = values.quiet || !process.stderr.isTTY ? undefined : new SingleBar({ format: `${kind} ${symbol} [{bar}] {percentage}% | {rows} rows | ETA {eta_formatted}`, stream: process.stderr, hideCursor: true }, Presets.shades_classic);
  bar?.start(Math.max(1, to - from), 0, { rows: 0 });
  try {
    // Whether a candle has closed is the exchange's call: its clock, not ours (a local clock ahead
    // of the server's would write a candle that is still forming).
    const offset = await client.syncTime();
    const job = { kind, symbol, symbolType: symbolType as SymbolTypeCode, from, to, interval, out } as const;
    const rows = await download(client, job, { onProgress: (done, _total, n) => bar?.update(done, { rows: n }), now: () => Date.now() + offset });
    bar?.stop();
    if (configOut !== undefined) {
      // A replay of trades needs the symbol's filters; candles use them too (every order meets them).
      const sym = await wireSymbol(hosts.baseUrl, symbol);
      if (sym === undefined && kind === 'aggTrades') throw new ValidationError('--config-out', configOut, `the exchange does not list ${symbol} in /open/v1/common/symbols: a tick replay needs its filters`);
      writeFileSync(configOut, backtestConfigFor(job, configOut, sym));
    }
    io.stdout(`${JSON.stringify({ out, kind, symbol, rows, ...(configOut !== undefined ? { config: configOut } : {}) })}\n`);
    return ExitCode.OK;
  } finally {
    bar?.stop();
    await client.close();
  }
}

/** The `download` command. */
export const command: Command = { usage: USAGE, run };
