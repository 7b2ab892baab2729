/**
 * The time bounds of a backtest (`backtest.start`, `backtest.end`) as epoch milliseconds. The
 * schema accepts either epoch ms or ISO 8601 text with an offset; both readers of a bound (the
 * config check that start is not after end, and the replay) convert through here so they agree,
 * and messages print them back through {@link timeText}.
 */

/** Epoch ms of a time bound as the schema accepts it (an integer, or ISO 8601 text the schema validated). */
export function timeBoundMs(bound: number | string): number {
  return typeof bound === 'number' ? bound : Date.parse(bound);
}

/** ISO 8601 text of an epoch-ms time for messages; past what a Date holds (a huge warm-up), the number itself. */
export function timeText(t: number): string {
  const d = new Date(t);
  return Number.isNaN(d.getTime()) ? `${t} ms after 1970` : d.toISOString();
}
