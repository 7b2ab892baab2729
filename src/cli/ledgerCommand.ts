/**
 * The shared frame of the ledger commands (`status`, `orders`, `trades`, `profit`): which ledger
 * (a run config's storage.path, or --ledger), the common filters, --json, and a read-only reader
 * that is always closed. They read while a run holds the ledger: nothing here takes its lock.
 */
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { ValidationError } from '../core/index.js';
import { LedgerReader, type LedgerQuery } from '../store/LedgerReader.js';
import { intOption, parseCommandArgs, type OptionSpec } from './args.js';
import { ExitCode, type CliIO, type Command } from './command.js';
import { loadRunConfig } from './runConfig.js';

/** Options every ledger command accepts. */
const LEDGER_OPTIONS = {
  ledger: { type: 'string' },
  strategy: { type: 'string' },
  symbol: { type: 'string' },
  since: { type: 'string' },
  limit: { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const satisfies OptionSpec;

/** Usage lines of the shared options. */
export const LEDGER_OPTIONS_USAGE = `The ledger: give the run's config (its storage.path is read) or --ledger.
  --ledger PATH      SQLite ledger file
  --strategy NAME    only this strategy
  --symbol SYMBOL    only this symbol (as configured, e.g. BTC_IDR)
  --since TIME       from this time on (ISO 8601, or a date such as 2026-11-26)
  --limit N          the newest N rows
  --json             machine-readable output (decimals as strings)
  -h, --help         this text`;

/** What a ledger command's body receives. */
export interface LedgerArgs {
  readonly reader: LedgerReader;
  readonly query: LedgerQuery;
  readonly json: boolean;
  readonly values: Readonly<Record<string, string | boolean | undefined>>;
  readonly io: CliIO;
}

/** Which ledger file: --ledger, else the storage.path of the config given as the one positional. */
export function ledgerPath(ledger: string | undefined, positionals: readonly string[]): string {
  if (positionals.length > 1) throw new ValidationError('config', positionals.join(' '), 'give at most one config file');
  const config = positionals[0];
  if (ledger !== undefined && config !== undefined) throw new ValidationError('--ledger', ledger, 'give either a config file or --ledger, not both');
  if (ledger !== undefined) return path.resolve(ledger);
  if (config === undefined) throw new ValidationError('config', undefined, 'give the run config (e.g. config/default.yaml) or --ledger PATH');
  const p = loadRunConfig(path.resolve(config)).storage.path;
  if (p === ':memory:') throw new ValidationError('storage.path', p, `${config} keeps no ledger file`);
  return p;
}

/**
 * The ledger file that `ledgerPath` names, which must exist: a mistyped --ledger (or a config whose
 * run never started) is a bad argument naming the path, not a failed read, and is never created.
 */
export function existingLedgerPath(ledger: string | undefined, positionals: readonly string[]): string {
  const file = ledgerPath(ledger, positionals);
  const field = ledger !== undefined ? '--ledger' : 'storage.path';
  if (!existsSync(file)) throw new ValidationError(field, file, ledger !== undefined ? 'no ledger file there' : `no ledger file there (${positionals[0] ?? ''} has not run yet)`);
  if (statSync(file).isDirectory()) throw new ValidationError(field, file, 'is a folder, not a ledger file (storage.path names the SQLite file itself)');
  return file;
}

/** Parses --since: an ISO 8601 time or date. */
function sinceOption(v: string | undefined): number | undefined {
  if (v === undefined) return undefined;
  const t = /^\d{4}-\d{2}-\d{2}/.test(v) ? Date.parse(v) : NaN;
  if (!Number.isFinite(t)) throw new ValidationError('--since', v, 'expected an ISO 8601 time or date such as 2026-11-26');
  return t;
}

/** Builds a ledger command from its usage, its own options and its body. */
export function ledgerCommand(usage: string, extra: OptionSpec, body: (a: LedgerArgs) => number): Command {
  return {
    usage,
    run(argv, io) {
      const { values, positionals } = parseCommandArgs(argv, { ...LEDGER_OPTIONS, ...extra }, true);
      const v = values as Record<string, string | boolean | undefined>;
      if (v.help === true) {
        io.stdout(`${usage}\n`);
        return Promise.resolve(ExitCode.OK);
      }
      const str = (k: string): string | undefined => (typeof v[k] === 'string' ? v[k] : undefined);
      const query: LedgerQuery = { strategy: str('strategy'), symbol: str('symbol'), since: sinceOption(str('since')), limit: str('limit') === undefined ? undefined : intOption('limit', str('limit'), 1) };
      const reader = LedgerReader.open(existingLedgerPath(str('ledger'), positionals));
      try {
        return Promise.resolve(body({ reader, query, json: v.json === true, values: v, io }));
      } finally {
        reader.close();
      }
    },
  };
}

/** Writes `value` as one JSON line (Decimals become strings through their toJSON). */
export function printJson(io: CliIO, value: unknown): number {
  io.stdout(`${JSON.stringify(value)}\n`);
  return ExitCode.OK;
}
