/** How a strategy failure of a backtest is worded in the summary, the HTML report and sweep tables. */
import type { StrategyFailure } from '../strategy/StrategyRunner.js';

/** `strategy mm threw (event) at 2024-08-08T23:55:00.000Z: boom`. */
export function failureText(f: StrategyFailure): string {
  return `strategy ${f.strategy} threw (${f.phase}) at ${new Date(f.t).toISOString()}: ${f.error}`;
}
