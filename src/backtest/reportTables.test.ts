import { describe, expect, it } from 'vitest';
import { folded, OPEN_TRIP_ROWS, roundTripsTable, tradeStatsTable } from './reportTables.js';
import type { RoundTrip } from './result.js';

const trip = (i: number): RoundTrip => ({ strategy: 's', symbol: 'BTC_USDT', side: 'LONG', entryT: i, exitT: i + 1000, qty: '1', entryPrice: '100', exitPrice: '101', pnl: '1', fees: '0', returnPct: 1 });

describe('round trips table', () => {
  it('shows a short list open and folds a long one behind a line that says how many', () => {
    const short = Array.from({ length: OPEN_TRIP_ROWS }, (_, i) => trip(i));
    expect(roundTripsTable(short, short.length)).not.toContain('<details>');
    const long = Array.from({ length: OPEN_TRIP_ROWS + 1 }, (_, i) => trip(i));
    const html = roundTripsTable(long, long.length);
    expect(html).toContain(`<details><summary>show the ${OPEN_TRIP_ROWS + 1} round trips</summary><table id="round-trips">`);
    expect(html.match(/<tr class="win">/g)).toHaveLength(OPEN_TRIP_ROWS + 1);
    expect(html).toContain('<td>1.00%</td>');
  });
});

describe('folded tables', () => {
  it('a table of more than 50 rows is folded under a summary; a shorter one is shown open', () => {
    expect(folded('Orders open at the end', '<table></table>', 51, 'open orders')).toBe('<h2>Orders open at the end</h2><details><summary>show the 51 open orders</summary><table></table></details>');
    expect(folded('Orders open at the end', '<table></table>', 50, 'open orders')).toBe('<h2>Orders open at the end</h2><table></table>');
  });
});

describe('trade statistics table', () => {
  it("names each strategy's quote asset in its header: the money rows are in it", async () => {
    const { ResultCollector } = await import('./ResultCollector.js');
    const { Decimal } = await import('../core/decimal.js');
    const c = new ResultCollector([{ name: 'mm', symbols: ['BTC_USDT'], initialEquity: new Decimal(100) }], 1000);
    c.mark('BTC_USDT', new Decimal(1));
    for (let t = 0; t <= 3000; t += 1000) c.sample(t);
    expect(tradeStatsTable(c.finish('n'))).toContain('<tr><th>trades</th><th>mm (USDT)</th></tr>');
  });
});
