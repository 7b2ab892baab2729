/**
 * The strategies' budgets against the account: each strategy spends only its own budget (its
 * book's free balance), so the run is safe only when together they cannot spend more than the
 * account has free. Two strategies given 1 BTC each on an account holding 1 BTC would both sell
 * it; one of them would meet the exchange's insufficient-balance refusal, maybe halfway through a
 * hedge, and trade on a position it does not have.
 */
import { ConfigError } from '../core/errors.js';
import { ZERO, type Decimal } from '../core/decimal.js';
import type { Balance } from '../core/types.js';

/** What the check reads of one strategy: its name, configured budget and current free balance. */
export interface BudgetHolder {
  readonly name: string;
  readonly budget: Readonly<Record<string, unknown>>;
  free(asset: string): Decimal;
}

/**
 * Throws a ConfigError naming the asset, each strategy's share and the account's free balance
 * when the strategies' free balances of a budgeted asset add up to more than the account's.
 */
export function checkBudgets(file: string, strategies: readonly BudgetHolder[], account: readonly Balance[]): void {
  const assets = [...new Set(strategies.flatMap((s) => Object.keys(s.budget)))];
  for (const asset of assets) {
    const shares = strategies.map((s) => ({ name: s.name, free: s.free(asset) }));
    const sum = shares.reduce((a, s) => a.plus(s.free), ZERO);
    const free = account.find((b) => b.asset === asset)?.free ?? ZERO;
    if (sum.gt(free)) {
      const each = shares.filter((s) => !s.free.isZero()).map((s) => `${s.name} ${s.free.toFixed()}`).join(', ');
      throw new ConfigError(file, `strategies.budget.${asset}`, sum.toFixed(), `the strategies may spend ${sum.toFixed()} ${asset} together (${each}) but the account has ${free.toFixed()} ${asset} free; lower the budgets`);
    }
  }
}
