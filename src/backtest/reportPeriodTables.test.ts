import { describe, expect, it } from 'vitest';
import { Decimal } from '../core/decimal.js';
import { ResultCollector } from './ResultCollector.js';
import { holdingTimesTable, markoutsTable, monthlyReturnsTable, symbolsTable } from './reportPeriodTables.js';

describe('report tables over time', () => {
  it('a row per holding bucket with trips, winners and losers; a row per year with its months', () => {
    const c = new ResultCollector([{ name: 's', symbols: ['BTC_USDT'], initialEquity: new Decimal(100) }], 60_000);
    const d = (x: string): Decimal => new Decimal(x);
    const fill = (E: number, side: 'BUY' | 'SELL', price: string) => ({ type: 'fill', E, strategy: 's', clientId: `c${E}`, orderId: `${E}`, symbol: 'BTC_USDT', side, tradeId: `${E}`, price: d(price), qty: d('0.1'), quoteQty: d(price).mul('0.1'), commission: d('0'), commissionAsset: 'USDT', isMaker: true }) as const;
    const jan31 = Date.parse('2024-01-31T23:00:00Z');
    c.mark('BTC_USDT', d('100'));
    c.sample(jan31);
    // a winner held 2 minutes in January, a loser held about an hour in February
    c.onEvent(fill(jan31 + 1, 'BUY', '100'));
    c.onEvent(fill(jan31 + 120_001, 'SELL', '110'));
    c.sample(jan31 + 3_540_000);
    c.onEvent(fill(jan31 + 3_600_001, 'BUY', '110'));
    c.mark('BTC_USDT', d('100'));
    c.onEvent(fill(jan31 + 7_380_000, 'SELL', '100'));
    c.sample(jan31 + 7_380_000);
    const r = c.finish('n');
    const h = holdingTimesTable(r);
    expect(h).toContain('<tr><td>1-5 min</td><td>1 (1 / 0)</td></tr>');
    expect(h).toContain('<tr><td>1-4 h</td><td>1 (0 / 1)</td></tr>');
    expect(h).toContain('<tr><td>&lt; 1 min</td><td>0</td></tr>');
    // January: +1 (100 to 101), February: -1 (101 to 100)
    // marks sampled every minute, all at 100: the 1 s and 10 s horizons are not measured; a minute
    // on, the buy at 100 scores 0, the sell at 110 +909.09 bps, the buy at 110 -909.09 bps; the
    // last sell's minute is past the end
    const k = markoutsTable(r);
    expect(k).toContain('<tr><td>1s</td><td>n/a (marks sampled every 60000 ms)</td></tr>');
    expect(k).toContain('<tr><td>60s</td><td>0.00 bps (3 fills)</td></tr>');
    // 0.1 BTC held from 31 Jan 23:00:00.001 to 23:02:00.001 (120,000 ms) and from 1 Feb
    // 00:00:00.001 to 01:03:00.000 (3,779,999 ms): 3,899,999 ms of the 7,380,000 ms run
    expect(symbolsTable(r)).toContain(`<tr><td>s</td><td>BTC_USDT</td><td>2</td><td>1</td><td>0</td><td>0.1</td><td>${Number(((0.1 * 3_899_999) / 7_380_000).toPrecision(10))}</td><td>52.85%</td><td>0.00%</td></tr>`);
    const m = monthlyReturnsTable(r);
    expect(m).toContain(`<tr><td>s</td><td>2024</td><td>1.00%</td><td>-0.99%</td>${'<td></td>'.repeat(10)}<td>0.00%</td></tr>`);
  });
});
