/**
 * `kancil orders resolve <clientId> --as canceled|rejected`: the operator's decision on an order
 * the bot cannot settle itself (the exchange does not know it, or its lookups keep failing), so
 * it stops holding every stop at exit 3 and its strategy's budget.
 *
 * Only two answers are offered, both closing the order with the fills the ledger has recorded:
 * `canceled` (it was on the exchange; nothing more of it will fill) and `rejected` (it never
 * reached the exchange; only when nothing of it executed). "Filled" is not one: a fill needs the
 * exchange's trade (price, quantity, commission, trade id), which a reconciliation fetches by
 * itself whenever the exchange still has it; an operator's word would put invented numbers into
 * positions and PnL. The decision is journalled (kind `operatorResolve`) before the order changes,
 * and the run must be stopped: the ledger's lock refuses a second writer.
 */
import { ValidationError } from '../core/errors.js';
import { isTerminalState } from '../bus/events.js';
import { Ledger } from '../store/Ledger.js';
import { parseCommandArgs } from './args.js';
import { ExitCode, type Command } from './command.js';
import { existingLedgerPath, printJson } from './ledgerCommand.js';

/** The states an operator may close an order as. */
export const ResolveAs = { canceled: 'CANCELED', rejected: 'REJECTED' } as const;
/** One of ResolveAs' keys. */
export type ResolveAsName = keyof typeof ResolveAs;

/** Usage of the subcommand (also part of `kancil orders --help`). */
export const RESOLVE_USAGE = `Usage: kancil orders resolve <clientId> --as canceled|rejected [config.yaml] [--ledger PATH] [--reason TEXT] [--json]

Closes an order the bot holds as live (NEW, PARTIALLY_FILLED, PENDING, UNKNOWN) that the
exchange cannot settle, with what its recorded fills show executed. Stop the run first.
  --as canceled      it was on the exchange and nothing more of it fills
  --as rejected      it never reached the exchange (refused when anything of it executed)
  --reason TEXT      why, kept in the journal and the order's reason
  --ledger PATH      SQLite ledger file (or give the run's config)
  --json             print the order after the change as JSON
  -h, --help         this text`;

const OPTIONS = {
  as: { type: 'string' },
  reason: { type: 'string' },
  ledger: { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

function isResolveAs(v: string): v is ResolveAsName {
  return Object.hasOwn(ResolveAs, v);
}

/** The `orders resolve` subcommand. */
export const resolveCommand: Command = {
  usage: RESOLVE_USAGE,
  run(argv, io) {
    const { values, positionals } = parseCommandArgs(argv, OPTIONS, true);
    if (values.help === true) {
      io.stdout(`${RESOLVE_USAGE}\n`);
      return Promise.resolve(ExitCode.OK);
    }
    const [clientId, ...rest] = positionals;
    if (clientId === undefined || clientId === '') throw new ValidationError('clientId', clientId, 'give the clientId of the order to resolve');
    const as = values.as;
    if (as === undefined || !isResolveAs(as)) throw new ValidationError('--as', as, `expected one of ${Object.keys(ResolveAs).join(', ')}`);
    const reasonText = values.reason ?? 'operator decision';
    // Opening would create an empty ledger at a mistyped path.
    const file = existingLedgerPath(values.ledger, rest);
    const ledger = Ledger.open(file);
    try {
      const o = ledger.order(clientId);
      if (!o) throw new ValidationError('clientId', clientId, 'no order with this clientId in the ledger');
      if (isTerminalState(o.state)) throw new ValidationError('clientId', clientId, `the order is already ${o.state}; only live orders can be resolved`);
      if (as === 'rejected' && o.cumQty.gt(0)) throw new ValidationError('--as', as, `${o.cumQty.toFixed()} of the order executed, so it reached the exchange; use --as canceled`);
      const state = ResolveAs[as];
      const now = Date.now();
      ledger.journal(now, 'operatorResolve', { clientId, orderId: o.orderId, from: o.state, to: state, reason: reasonText });
      const after = ledger.updateOrder(clientId, { state, reason: `OPERATOR: ${reasonText}` }, now, 'operator', reasonText);
      if (values.json === true) return Promise.resolve(printJson(io, after));
      io.stdout(`${clientId}: ${o.state} -> ${state} (${reasonText}); executed ${o.cumQty.toFixed()}\n`);
      return Promise.resolve(ExitCode.OK);
    } finally {
      ledger.close();
    }
  },
};
