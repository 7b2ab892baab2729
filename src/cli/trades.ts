/** `kancil trades`: the ledger's fills, newest last. */
import { ExitCode } from './command.js';
import { LEDGER_OPTIONS_USAGE, ledgerCommand, printJson } from './ledgerCommand.js';
import { formatTable, timeCell } from './table.js';
import { counted } from '../core/plural.js';

const USAGE = `Usage: kancil trades [config.yaml] [--ledger PATH] [filters] [--json]

Lists the fills recorded in a run's ledger: exchange time, strategy, symbol, side, price, quantity,
quote amount, commission, maker or taker, the order's clientId and the exchange trade id.
${LEDGER_OPTIONS_USAGE}`;

/** The `trades` command. */
export const command = ledgerCommand(USAGE, {}, ({ reader, query, json, io }) => {
  const fills = reader.fills(query);
  if (json) return printJson(io, fills);
  const header = ['time (UTC)', 'strategy', 'symbol', 'side', 'price', 'qty', 'quote', 'fee', 'role', 'clientId', 'tradeId'];
  io.stdout(formatTable(header, fills.map((f) => [timeCell(f.time), f.strategy, f.symbol, f.side, f.price.toFixed(), f.qty.toFixed(), f.quoteQty.toFixed(), `${f.commission.toFixed()} ${f.commissionAsset ?? ''}`.trim(), f.isMaker ? 'maker' : 'taker', f.clientId, f.tradeId])));
  io.stdout(`${counted(fills.length, 'fill')}\n`);
  return ExitCode.OK;
});
