import { describe, expect, it } from 'vitest';
import { monthlyReturns, yearReturnPct } from './monthlyReturns.js';

const t = (iso: string): number => Date.parse(iso);

describe('monthlyReturns', () => {
  it('chains each month from the last sample of the month before', () => {
    const m = monthlyReturns([
      { t: t('2024-01-10T00:00:00Z'), equity: 100 },
      { t: t('2024-01-31T23:59:59Z'), equity: 110 },
      { t: t('2024-02-15T00:00:00Z'), equity: 99 },
      // no sample in March: April's return is from the end of February
      { t: t('2024-04-01T00:00:00Z'), equity: 88 },
    ]);
    expect(m).toEqual([
      { month: '2024-01', returnPct: 10 },
      { month: '2024-02', returnPct: -10 },
      { month: '2024-04', returnPct: roundPct(88 / 99 - 1) },
    ]);
    // compounded, the months give the run's return (100 to 88)
    expect(yearReturnPct(m)).toBeCloseTo(-12, 8);
  });

  it('has no ratio from a month that started at equity <= 0, and nothing for an empty curve', () => {
    expect(monthlyReturns([{ t: 0, equity: 0 }, { t: 1, equity: 5 }])).toEqual([{ month: '1970-01', returnPct: null }]);
    expect(monthlyReturns([])).toEqual([]);
    expect(yearReturnPct([{ month: '1970-01', returnPct: null }])).toBeNull();
  });
});

function roundPct(x: number): number {
  return Number((x * 100).toPrecision(10));
}
