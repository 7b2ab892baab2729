/** The contract every `kancil` subcommand implements, and the I/O it is given. */

/** Where a command writes and what environment it reads; injected so tests can capture output. */
export interface CliIO {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
  readonly env: Readonly<Record<string, string | undefined>>;
}

/**
 * Process exit codes (README "Exit codes"): 0 success; 1 the operation failed (for `run`: it could
 * not start safely, or a strategy failed); 2 the command line or the config was wrong (starting
 * again cannot help); 3 `run` stopped with orders of its own still live or unresolved on the
 * exchange (the next start reconciles and adopts them: a supervisor should start it again); 130
 * a backtest or sweep stopped by SIGINT/SIGTERM (a sweep still writes its finished points).
 */
export const ExitCode = { OK: 0, FAILED: 1, USAGE: 2, ORDERS_LEFT: 3, INTERRUPTED: 130 } as const;

/** A subcommand. */
export interface Command {
  /** Usage text printed by `kancil <name> --help` and after a bad argument. */
  readonly usage: string;
  /** Runs with the arguments after the command name; resolves to the exit code. */
  run(argv: readonly string[], io: CliIO): Promise<number>;
}

/**
 * A registry entry. Commands load lazily so `--help` and light commands never import heavy
 * modules (SQLite, the simulator) they do not need.
 */
export interface CommandEntry {
  readonly name: string;
  /** One line for the `kancil --help` list. */
  readonly summary: string;
  readonly load: () => Promise<{ readonly command: Command }>;
}
