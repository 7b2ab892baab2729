/**
 * Order ids of an exchange a bot's ledger outlives (the sandbox, paper's simulated venue): the
 * ledger keys fills on (orderId, tradeId) and drops a repeat, so an engine that counted from 1 at
 * every start had a later run's fills taken for an earlier run's.
 */

/**
 * A first order id no earlier start of the engine has reached: the wall clock in µs (~1.8e15 in
 * 2026, under 2^53 until the year 2255). A run would need a million orders a second to catch up
 * with the next start's ids.
 */
export function restartSafeFirstOrderId(nowMs: number): number {
  return Math.floor(nowMs) * 1000;
}
