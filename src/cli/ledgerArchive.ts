/**
 * `kancil ledger archive --before DATE`: moves a ledger's old rows to a dated SQLite file beside it
 * (src/store/archive.ts says what moves and what a restart needs kept). It takes the ledger's lock,
 * so it refuses while a run holds the ledger: stop the bot, archive, start it again.
 */
import path from 'node:path';
import { ValidationError } from '../core/index.js';
import { Ledger } from '../store/Ledger.js';
import type { ArchiveResult } from '../store/archive.js';
import { intOption, parseCommandArgs, type OptionSpec } from './args.js';
import { ExitCode, type Command, type CliIO } from './command.js';
import { existingLedgerPath, printJson } from './ledgerCommand.js';
import { counted } from '../core/plural.js';

const USAGE = `Usage: kancil ledger archive (--before DATE | --keep-days N) [config.yaml | --ledger PATH] [--to FILE] [--json]

Moves the ledger's rows older than DATE to a dated SQLite file of the same schema: terminal orders
with their transitions, intents and risk decisions, journal lines, older balance snapshots. Kept:
every fill (a live restart rebuilds positions and budgets from them), every order not yet terminal,
the start/stop journal lines, the newest balance of each asset. Then the ledger is compacted.
It takes the ledger's lock: stop the run first. The cutoff must be at least a day ago.

  --before DATE    cutoff: ISO 8601 date or time (2026-11-01 is midnight UTC)
  --keep-days N    cutoff: midnight UTC N days ago (N >= 1)
  --ledger PATH    the ledger file (or give the run's config: its storage.path)
  --to FILE        archive file (default: <ledger>.archive-<DATE>.db beside the ledger; an
                   existing archive file gets the rows added)
  --json           machine-readable output
  -h, --help       this text`;

const OPTIONS = {
  before: { type: 'string' },
  'keep-days': { type: 'string' },
  ledger: { type: 'string' },
  to: { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const satisfies OptionSpec;

/** The cutoff: --before (an ISO 8601 date or time) or --keep-days N (midnight UTC N days ago). */
function cutoff(v: string | undefined, keepDays: string | undefined): number {
  if (v !== undefined && keepDays !== undefined) throw new ValidationError('--keep-days', keepDays, 'give either --before or --keep-days, not both');
  if (keepDays !== undefined) {
    const n = intOption('keep-days', keepDays, 1);
    const today = Math.floor(Date.now() / 86_400_000) * 86_400_000;
    return today - n * 86_400_000;
  }
  if (v === undefined) throw new ValidationError('--before', undefined, 'is required (e.g. --before 2026-11-01, or --keep-days 7)');
  const t = /^\d{4}-\d{2}-\d{2}(T[\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.test(v) ? Date.parse(v.length === 10 ? `${v}T00:00:00Z` : v) : NaN;
  if (!Number.isFinite(t)) throw new ValidationError('--before', v, 'expected an ISO 8601 date or time such as 2026-11-01');
  return t;
}

/** The default archive file: beside the ledger, named after it and the cutoff's day. */
function archiveFile(ledger: string, before: number): string {
  const { dir, name } = path.parse(ledger);
  return path.join(dir, `${name}.archive-${new Date(before).toISOString().slice(0, 10)}.db`);
}

/**
 * Start-up reconciliation fetches the missing fills of orders that finished in the last day
 * (execution/reconciliation.ts, tradeLookbackMs): those orders must still be in the ledger.
 */
const MIN_AGE_MS = 86_400_000;

/** Refuses a cutoff within the last day (or in the future). */
function checkCutoff(before: number): void {
  if (before > Date.now() - MIN_AGE_MS) throw new ValidationError('--before', new Date(before).toISOString(), 'must be at least a day ago: start-up reconciliation still reads the orders of the last day');
}

function report(io: CliIO, ledger: string, r: ArchiveResult): void {
  if (!r.written) {
    io.stdout(`nothing in ${ledger} to archive before ${new Date(r.before).toISOString()}; no archive file written\n`);
    return;
  }
  const moved = Object.entries(r.moved).map(([k, n]) => `${k} ${n}`).join(', ');
  const mb = (b: number): string => `${(b / 1_048_576).toFixed(1)} MB`;
  io.stdout(`archived rows before ${new Date(r.before).toISOString()} to ${r.file}\n  moved: ${moved}\n  kept: ${counted(r.kept.fills, 'older fill')} (positions are rebuilt from them), ${counted(r.kept.openOrders, 'order')} not yet terminal\n  ${ledger}: ${mb(r.bytesBefore)} -> ${mb(r.bytesAfter)}\n`);
}

/** The `ledger` command: upkeep of a ledger file (`archive`). */
export const command: Command = {
  usage: USAGE,
  run(argv, io) {
    const [sub, ...rest] = argv;
    if (sub !== 'archive') throw new ValidationError('subcommand', sub, 'expected archive');
    const { values, positionals } = parseCommandArgs(rest, OPTIONS, true);
    const before = cutoff(values.before, values['keep-days']);
    const ledger = existingLedgerPath(values.ledger, positionals);
    checkCutoff(before);
    const to = path.resolve(values.to ?? archiveFile(ledger, before));
    if (to === ledger) throw new ValidationError('--to', values.to, 'is the ledger itself');
    const l = Ledger.open(ledger);
    let r: ArchiveResult;
    try {
      r = l.archive(before, to);
    } finally {
      l.close();
    }
    if (values.json === true) return Promise.resolve(printJson(io, { ledger, ...r }));
    report(io, ledger, r);
    return Promise.resolve(ExitCode.OK);
  },
};
