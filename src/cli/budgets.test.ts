import { describe, expect, it } from 'vitest';
import { Decimal, ZERO } from '../core/decimal.js';
import { ConfigError } from '../core/errors.js';
import { checkBudgets, type BudgetHolder } from './budgets.js';

const holder = (name: string, free: Record<string, string>): BudgetHolder => ({ name, budget: free, free: (a) => (free[a] === undefined ? ZERO : new Decimal(free[a])) });
const account = [
  { asset: 'BTC', free: new Decimal('1'), locked: new Decimal('5') },
  { asset: 'IDR', free: new Decimal('1000000.5'), locked: ZERO },
];

describe('checkBudgets', () => {
  it('passes when the strategies together fit in the free balance, to the last digit', () => {
    expect(() => checkBudgets('run.yaml', [holder('a', { BTC: '0.4', IDR: '1000000' }), holder('b', { BTC: '0.6', IDR: '0.5' })], account)).not.toThrow();
  });

  it('refuses two strategies whose budgets add up to more than the account has free, naming the asset and each share', () => {
    let err: unknown;
    try {
      checkBudgets('run.yaml', [holder('mm', { BTC: '1' }), holder('grid', { BTC: '0.00000001', IDR: '5' })], account);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as Error).message).toBe(
      'run.yaml: strategies.budget.BTC="1.00000001": the strategies may spend 1.00000001 BTC together (mm 1, grid 0.00000001) but the account has 1 BTC free; lower the budgets',
    );
  });

  it('counts free balances only: what the account holds locked in orders is not spendable', () => {
    expect(() => checkBudgets('run.yaml', [holder('a', { BTC: '2' })], account)).toThrow(/account has 1 BTC free/);
  });

  it('refuses a budget in an asset the account does not hold at all', () => {
    expect(() => checkBudgets('run.yaml', [holder('a', { USDT: '1' })], account)).toThrow(/may spend 1 USDT together \(a 1\) but the account has 0 USDT free/);
  });
});
