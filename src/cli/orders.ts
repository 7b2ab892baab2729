/** `kancil orders`: the ledger's orders (all, or --open), newest last; `kancil orders resolve` closes one by the operator's decision. */
import type { OrderRecord } from '../store/records.js';
import { ExitCode, type Command } from './command.js';
import { LEDGER_OPTIONS_USAGE, ledgerCommand, printJson } from './ledgerCommand.js';
import { RESOLVE_USAGE, resolveCommand } from './ordersResolve.js';
import { formatTable, timeCell } from './table.js';
import { counted } from '../core/plural.js';

const USAGE = `Usage: kancil orders [config.yaml] [--ledger PATH] [--open] [filters] [--json]
       kancil orders resolve <clientId> --as canceled|rejected [config.yaml] [--ledger PATH] [--reason TEXT]

Lists the orders of a run's ledger: time journalled, clientId, strategy, symbol, side, type,
price, quantity, executed quantity, state and the last reason (reject, expiry, unknown outcome).
  --open             only orders not in a final state (PENDING, NEW, PARTIALLY_FILLED, UNKNOWN)
${LEDGER_OPTIONS_USAGE}

${RESOLVE_USAGE}`;

/** One order as a table row. */
export function orderCells(o: OrderRecord): string[] {
  return [timeCell(o.createdAt), o.clientId, o.strategy, o.symbol, o.side, o.orderType, o.price?.toFixed() ?? '-', o.quantity?.toFixed() ?? o.quoteOrderQty?.toFixed() ?? '-', o.cumQty.toFixed(), o.state, o.reason ?? ''];
}

/** Header of {@link orderCells}. */
export const ORDER_HEADER = ['created (UTC)', 'clientId', 'strategy', 'symbol', 'side', 'type', 'price', 'qty', 'executed', 'state', 'reason'];

/** The listing. */
const list = ledgerCommand(USAGE, { open: { type: 'boolean' } }, ({ reader, query, json, values, io }) => {
  const orders = reader.orders({ ...query, open: values.open === true });
  if (json) return printJson(io, orders);
  io.stdout(formatTable(ORDER_HEADER, orders.map(orderCells)));
  io.stdout(`${counted(orders.length, 'order')}\n`);
  return ExitCode.OK;
});

/** The `orders` command: the listing, or `resolve`. */
export const command: Command = {
  usage: USAGE,
  run: (argv, io) => (argv[0] === 'resolve' ? resolveCommand.run(argv.slice(1), io) : list.run(argv, io)),
};
