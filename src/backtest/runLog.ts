/**
 * A backtest's strategy log: the run's logger with the virtual time of each line (`at`), since the
 * logger's own timestamp is the wall clock of a replay that covers days in seconds.
 */
import type { StrategyLogger } from '../strategy/types.js';

/** `log` with `at` (ISO 8601 of `now()`) on every line. */
export function virtualTimeLog(log: StrategyLogger, now: () => number): StrategyLogger {
  const at = (obj: object | string): object => (typeof obj === 'string' ? { at: new Date(now()).toISOString(), msg: obj } : { at: new Date(now()).toISOString(), ...obj });
  return {
    info: (obj, msg) => log.info(at(obj), msg),
    warn: (obj, msg) => log.warn(at(obj), msg),
    error: (obj, msg) => log.error(at(obj), msg),
    debug: (obj, msg) => log.debug(at(obj), msg),
  };
}
