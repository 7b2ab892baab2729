import { describe, expect, it } from 'vitest';
import { Decimal } from '../core/decimal.js';
import { ResultCollector } from '../backtest/ResultCollector.js';
import { streamsOf } from '../backtest/resultStreams.js';
import { summary } from './backtestSummary.js';

describe('backtest summary', () => {
  it('prints percents and ratios with their unit at two decimals, and the drawdown and return figures', () => {
    const c = new ResultCollector([{ name: 's', symbols: ['BTC_USDT'], initialEquity: new Decimal(109) }], 1000);
    const d = (x: string): Decimal => new Decimal(x);
    c.mark('BTC_USDT', d('100'));
    c.sample(0);
    c.onEvent({ type: 'fill', E: 1, strategy: 's', clientId: 'c', orderId: '1', symbol: 'BTC_USDT', side: 'BUY', tradeId: '1', price: d('100'), qty: d('1'), quoteQty: d('100'), commission: d('0'), commissionAsset: 'USDT', isMaker: true });
    // equity 109, then 87 (1 BTC at 78): a fall of 20.18348624 %, never recovered
    c.mark('BTC_USDT', d('78'));
    c.sample(1000);
    const r = c.finish('n');
    const text = summary(r);
    streamsOf(r).dispose();
    expect(r.strategies.s?.maxDrawdownPct).toBe(20.18348624);
    expect(text).toContain('max DD 20.18%');
    expect(text).toContain('(-20.18%)');
    expect(text).toContain('  s risk: Calmar n/a, worst drawdown 20.18% from 1970-01-01T00:00:00.000Z over 1s, not recovered, longest drawdown 1s; returns per 1000 ms: n/a (1 returns, fewer than 30)');
    expect(text).not.toMatch(/\d\.\d{5,}%/);
  });
});
