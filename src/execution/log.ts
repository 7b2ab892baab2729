/** The logger shape the execution layer needs; a pino logger satisfies it. */
export interface ExecLogger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
  debug(obj: object, msg?: string): void;
}

/** A logger that drops everything (tests, backtests). */
export const silentLogger: ExecLogger = { info() {}, warn() {}, error() {}, debug() {} };
