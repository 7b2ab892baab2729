/** `kancil profit [--by strategy|day]`: PnL from the ledger's fills. */
import { ValidationError } from '../core/index.js';
import { profitByDay, profitByStrategy } from '../console/profit.js';
import { ExitCode } from './command.js';
import { LEDGER_OPTIONS_USAGE, ledgerCommand, printJson } from './ledgerCommand.js';
import { formatTable } from './table.js';

const USAGE = `Usage: kancil profit [config.yaml] [--ledger PATH] [--by strategy|day] [filters] [--json]

Profit and loss from the fills in a run's ledger, in each symbol's quote asset: cash received
minus cash paid, less commissions in the pair's assets, plus the position marked at the run's
last journalled mark (the mid of its book, else its last trade), or the symbol's last fill price
where the run never marked it; split at average cost into realized and unrealized. Commissions
in other assets are listed apart.
  --by strategy      per strategy and symbol (default): fills, volume, position, mark, PnL
  --by day           per UTC day and quote asset: fills, volume, and the day's change of PnL
${LEDGER_OPTIONS_USAGE}`;

/** The `profit` command. */
export const command = ledgerCommand(USAGE, { by: { type: 'string' } }, ({ reader, query, json, values, io }) => {
  const by = values.by ?? 'strategy';
  if (by !== 'strategy' && by !== 'day') throw new ValidationError('--by', by, 'expected strategy or day');
  const fills = reader.fills({ ...query, limit: undefined });
  if (by === 'day') {
    const days = profitByDay(fills).slice(query.limit === undefined ? 0 : -query.limit);
    if (json) return printJson(io, days);
    io.stdout(formatTable(['day (UTC)', 'quote', 'fills', 'volume', 'pnl'], days.map((d) => [d.day, d.quote, String(d.fills), d.volume, d.pnl])));
    return ExitCode.OK;
  }
  const marks = reader.latestMarks();
  const rows = profitByStrategy(fills, (s) => marks.get(s));
  if (json) return printJson(io, rows);
  io.stdout(formatTable(['strategy', 'symbol', 'fills', 'volume', 'position', 'mark', 'pnl', 'realized', 'unrealized', 'other fees'], rows.map((r) => [r.strategy, r.symbol, String(r.fills), r.volume, r.position, r.mark ?? '-', `${r.pnl} ${r.quote}`, r.realized, r.unrealized, Object.entries(r.otherFees).map(([a, v]) => `${v} ${a}`).join(', ')])));
  if (rows.length === 0) io.stdout('no fills\n');
  return ExitCode.OK;
});
