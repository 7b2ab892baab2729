import { describe, expect, it } from 'vitest';
import { OPEN_TRIP_ROWS, roundTripsTable } from './reportTables.js';
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
