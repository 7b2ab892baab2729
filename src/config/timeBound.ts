/**
 * The time bounds of a backtest (`backtest.start`, `backtest.end`) as epoch milliseconds. The
 * schema accepts either epoch ms or ISO 8601 text with an offset; both readers of a bound (the
 * config check that start is not after end, and the replay) convert through here so they agree.
 */

/** Epoch ms of a time bound as the schema accepts it (an integer, or ISO 8601 text the schema validated). */
export function timeBoundMs(bound: number | string): number {
  return typeof bound === 'number' ? bound : Date.parse(bound);
}
