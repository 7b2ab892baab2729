/**
 * `kancil status`: what a run's ledger says now: the last run (running, stopped, or ended without
 * a stop line), orders by state and the open ones, positions and PnL per strategy, balances,
 * rejections by reason, and the latest operator commands, state changes and strategy failures.
 */
import { profitByStrategy } from '../console/profit.js';
import { splitSymbol } from '../core/symbols.js';
import { equityIn } from '../execution/equity.js';
import type { JournalEntry } from '../store/LedgerReader.js';
import { ExitCode } from './command.js';
import { LEDGER_OPTIONS_USAGE, ledgerCommand, printJson } from './ledgerCommand.js';
import { ORDER_HEADER, orderCells } from './orders.js';
import { formatTable, timeCell } from './table.js';
import { counted } from '../core/plural.js';

const USAGE = `Usage: kancil status [config.yaml] [--ledger PATH] [--json]

Summarises a run's ledger (also while the run is going): the last run and whether it is still
running, orders by state and the open ones, positions and PnL per strategy, realized and
unrealized (at the run's last journalled mark, else the last fill price), the latest balances,
rejections by reason, and the latest operator commands, trading-state changes and strategy
failures.
${LEDGER_OPTIONS_USAGE}`;

/** Journal kinds an operator wants to see in a status. */
const EVENTS = ['operator', 'console', 'tradingState', 'strategyFailed', 'exchangeUnreachable', 'exchangeBack', 'orderLost', 'operatorResolve'];

/** Whether the process of a run is alive (signal 0 checks without sending; EPERM: alive, not ours). */
function alive(pid: unknown): boolean {
  if (typeof pid !== 'number' || !Number.isSafeInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The last run of the ledger and how it ended. */
function lastRun(starts: readonly JournalEntry[], stops: readonly JournalEntry[]): Record<string, unknown> | undefined {
  const start = starts.at(-1);
  if (!start) return undefined;
  const data = (start.data ?? {}) as Record<string, unknown>;
  const stop = stops.at(-1);
  const stopped = stop !== undefined && stop.id > start.id;
  const state = stopped ? 'stopped' : alive(data.pid) ? 'running' : 'ended without a stop line (killed or crashed; the next start reconciles)';
  return { ...data, startedAt: start.ts, state, ...(stopped ? { stoppedAt: stop.ts, stopReason: (stop.data as { reason?: unknown } | null)?.reason } : {}) };
}

/** The `status` command. */
export const command = ledgerCommand(USAGE, {}, ({ reader, query, json, io }) => {
  const run = lastRun(reader.journal(['start'], 1), reader.journal(['stop'], 1));
  const open = reader.orders({ ...query, open: true });
  const marks = reader.latestMarks();
  const positions = profitByStrategy(reader.fills({ ...query, limit: undefined }), (s) => marks.get(s));
  const balances = reader.latestBalances();
  // Equity as the run values it: in its first symbol's quote (the first it journalled a mark of), at those marks.
  const firstMarked = [...marks.keys()][0];
  const quote = firstMarked === undefined ? undefined : splitSymbol(firstMarked).quote;
  const eq = quote === undefined ? undefined : equityIn(quote, balances, (asset) => marks.get(`${asset}_${quote}`));
  const equity = eq === undefined ? undefined : { quote: eq.quote, value: eq.value.toFixed(), unvalued: eq.unvalued };
  const events = reader.journal(EVENTS, query.limit ?? 10);
  const status = { run, runs: reader.journal(['start'], 1_000_000).length, orders: reader.orderCounts(), openOrders: open, positions, balances, equity, rejections: reader.rejectionCounts(), events };
  if (json) return printJson(io, status);
  if (run) io.stdout(`last run: ${String(run.name ?? '?')} (${String(run.mode ?? '?')}) started ${timeCell(run.startedAt as number)}, ${String(run.state)}${run.stoppedAt !== undefined ? ` at ${timeCell(run.stoppedAt as number)} (${String(run.stopReason)})` : ''}; ${counted(status.runs, 'run')} in this ledger\n`);
  else io.stdout('no run has started on this ledger\n');
  io.stdout(`orders: ${Object.entries(status.orders).map(([k, v]) => `${k} ${v}`).join(', ') || 'none'}\n`);
  if (open.length > 0) io.stdout(`\nopen orders\n${formatTable(ORDER_HEADER, open.map(orderCells))}`);
  if (positions.length > 0) io.stdout(`\npositions (at the run's last journalled mark, else the last fill price)\n${formatTable(['strategy', 'symbol', 'fills', 'position', 'mark', 'pnl', 'realized', 'unrealized'], positions.map((p) => [p.strategy, p.symbol, String(p.fills), p.position, p.mark ?? '-', `${p.pnl} ${p.quote}`, p.realized, p.unrealized]))}`);
  if (balances.length > 0) io.stdout(`\nbalances (latest recorded)\n${formatTable(['asset', 'free', 'locked'], balances.map((b) => [b.asset, b.free.toFixed(), b.locked.toFixed()]))}`);
  if (equity !== undefined && balances.length > 0) io.stdout(`equity: ${equity.value} ${equity.quote} at the run's last marks${equity.unvalued.length > 0 ? ` (not valued: ${equity.unvalued.join(', ')})` : ''}\n`);
  const rejections = Object.entries(status.rejections);
  if (rejections.length > 0) io.stdout(`\nrejected intents: ${rejections.map(([k, v]) => `${k} ${v}`).join(', ')}\n`);
  if (events.length > 0) io.stdout(`\nlatest events\n${formatTable(['time (UTC)', 'kind', 'detail'], events.map((e) => [timeCell(e.ts), e.kind, JSON.stringify(e.data)]))}`);
  return ExitCode.OK;
});
