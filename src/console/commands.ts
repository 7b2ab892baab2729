/**
 * Operator commands, one path for every way in (the console's HTTP API, Telegram): checked, then
 * journalled in the ledger (kind `console`, with the source and who asked), then acted on. The
 * journal line comes first so the ledger says who asked for what even if acting fails. Once the
 * run is stopping every command is refused (409) before it writes anything: the shutdown cancels
 * the orders and closes the ledger, and a resume or a cancel-all racing it would do harm or throw.
 */
import type { TradingStateName } from '../bus/events.js';
import type { ConsoleRun } from './source.js';

/** Commands and the trading state each one sets (cancel-all and stop set none). */
export const OPERATOR_COMMANDS = { halt: 'HALTED', reduce: 'REDUCING', resume: 'ACTIVE', 'cancel-all': undefined, stop: undefined } as const satisfies Record<string, TradingStateName | undefined>;
/** A command name. */
export type OperatorCommandName = keyof typeof OPERATOR_COMMANDS;

/** Where a command came from. */
export const CommandSource = { console: 'console', telegram: 'telegram' } as const;
/** A command source. */
export type CommandSourceName = keyof typeof CommandSource;

/** One command as asked. */
export interface OperatorCommand {
  readonly name: string;
  /** One strategy, or the whole run. */
  readonly strategy: string | undefined;
  readonly reason: string;
  readonly source: CommandSourceName;
  /** Who asked: an address, a chat and user (never a credential). */
  readonly from: string | undefined;
}

/** What a command did, or why it was refused (`status` as HTTP would say it). */
export type CommandResult =
  | { readonly ok: true; readonly command: OperatorCommandName; readonly strategy: string | undefined; readonly state?: TradingStateName; readonly cancelled?: number }
  | { readonly ok: false; readonly status: 400 | 404 | 409; readonly error: string };

/** Longest reason kept. */
export const MAX_REASON = 200;

function isCommand(name: string): name is OperatorCommandName {
  return Object.hasOwn(OPERATOR_COMMANDS, name);
}

/** Checks, journals and carries out one operator command. */
export function executeCommand(run: ConsoleRun, log: { info(o: object, msg: string): void }, c: OperatorCommand): CommandResult {
  const { strategy, reason } = c;
  if (reason.length > MAX_REASON) return { ok: false, status: 400, error: `reason: expected a string of at most ${MAX_REASON} characters` };
  if (strategy !== undefined && !run.strategies().some((s) => s.name === strategy)) return { ok: false, status: 404, error: `no strategy named ${JSON.stringify(strategy)} in this run (it has ${run.strategies().map((s) => s.name).join(', ')})` };
  const name = c.name;
  if (!isCommand(name) || (name === 'stop' && strategy !== undefined)) return { ok: false, status: 404, error: `no such command: ${name}${strategy !== undefined ? ` for a strategy` : ''} (halt, reduce, resume, cancel-all${strategy === undefined ? ', stop' : ''})` };
  const stopping = run.stopping();
  if (stopping !== undefined) return { ok: false, status: 409, error: `stopping: command refused (the run is stopping: ${stopping})` };
  run.journal('console', { command: name, strategy, reason, from: c.from, source: c.source });
  log.info({ command: name, strategy, reason, from: c.from, source: c.source }, 'operator command');
  const state = OPERATOR_COMMANDS[name];
  if (state !== undefined) {
    run.setState({ strategy }, state, reason);
    return { ok: true, command: name, strategy, state };
  }
  if (name === 'cancel-all') return { ok: true, command: name, strategy, cancelled: run.cancelAll({ strategy }) };
  run.stop(`operator: ${reason}`);
  return { ok: true, command: name, strategy };
}
