/**
 * The subcommands of `kancil`. To add one, write src/cli/<name>.ts exporting
 * `command: Command` (see command.ts) and add one line below.
 */
import type { CommandEntry } from './command.js';

/** Every subcommand, in the order `kancil --help` lists them. */
export const commands: readonly CommandEntry[] = [
  { name: 'time', summary: 'print the exchange server time and the local clock offset (connectivity check)', load: () => import('./time.js') },
  { name: 'symbols', summary: 'list the exchange symbols with their filters', load: () => import('./symbols.js') },
  { name: 'sandbox', summary: 'start the local sandbox exchange (both REST APIs, streams, WebSocket API) from a YAML config', load: () => import('../sandbox/cli.js') },
  { name: 'backtest', summary: 'replay recorded streams or candles through the same pipeline with simulated execution', load: () => import('./backtest.js') },
  { name: 'worker', summary: 'run the jobs of queue sweeps (backtest --sweep --queue redis://...) on this machine', load: () => import('./worker.js') },
  { name: 'record', summary: 'record market streams to backtest-data/, or import the shared recording formats', load: () => import('./record.js') },
  { name: 'download', summary: 'download klines or aggregate trades from the exchange REST into backtest data files (resumable)', load: () => import('./download.js') },
  { name: 'new', summary: 'write a new strategy, its test and a backtest config to start from (new strategy NAME)', load: () => import('./new.js') },
  { name: 'strategies', summary: 'list the strategies with their descriptions and parameters (defaults)', load: () => import('./strategies.js') },
  { name: 'doctor', summary: 'check a run config before starting it: keys, exchange, clock, account, symbols, ledger, console token, notifications', load: () => import('./doctor.js') },
  { name: 'run', summary: 'run strategies live or on paper from a YAML config (Ctrl-C stops)', load: () => import('./run.js') },
  { name: 'status', summary: "a run's ledger at a glance: last run, open orders, positions, balances, events", load: () => import('./status.js') },
  { name: 'orders', summary: "the orders in a run's ledger (--open: only live ones)", load: () => import('./orders.js') },
  { name: 'trades', summary: "the fills in a run's ledger", load: () => import('./trades.js') },
  { name: 'ledger', summary: 'ledger upkeep: archive --before DATE moves old rows to a dated file, keeping what a restart needs', load: () => import('./ledgerArchive.js') },
  { name: 'profit', summary: "profit and loss from a run's ledger, per strategy or per day (--by day)", load: () => import('./profit.js') },
];
