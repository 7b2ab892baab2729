import { describe, expect, it } from 'vitest';
import type { FillEvent } from '../bus/events.js';
import { Decimal } from '../core/decimal.js';
import { FillLines, parseFillLine } from './fillLine.js';

function fill(over: Partial<FillEvent>): FillEvent {
  return { type: 'fill', E: 1722470459999, strategy: 'sma', clientId: 'c1', orderId: '1', symbol: 'BTC_USDT', side: 'BUY', tradeId: '7', price: new Decimal('64628.01'), qty: new Decimal('0.1'), quoteQty: new Decimal('6462.801'), commission: new Decimal('0.0001'), commissionAsset: 'BTC', isMaker: false, ...over };
}

/** What the collector spooled before: JSON.stringify of the ReportFill. */
function viaJson(e: FillEvent): string {
  return JSON.stringify({ t: e.E, strategy: e.strategy, symbol: e.symbol, side: e.side, price: e.price.toFixed(), qty: e.qty.toFixed(), fee: e.commission.toFixed(), feeAsset: e.commissionAsset, maker: e.isMaker });
}

describe('fill JSON lines', () => {
  it('are what JSON.stringify gives for the ReportFill, names escaped, odd values included', () => {
    const lines = new FillLines();
    const cases = [
      fill({}),
      fill({ side: 'SELL', commissionAsset: null, isMaker: true, strategy: 'a "quoted"\\name\n', symbol: 'ÉTH_€' }),
      fill({ E: Number.NaN, price: new Decimal('1e-12'), qty: new Decimal('-0'), commission: new Decimal('123456789012345678901234567890.5') }),
      fill({ E: -0, commission: new Decimal(Number.NaN) }),
    ];
    for (const e of [...cases, ...cases]) expect(lines.line(e)).toBe(viaJson(e));
  });

  it('read back by parseFillLine as JSON.parse reads them, escaped names and odd lines included', () => {
    const lines = new FillLines();
    const cases = [
      fill({}),
      fill({ side: 'SELL', commissionAsset: null, isMaker: true }),
      fill({ strategy: 'a "quoted"\\name\n', symbol: 'ÉTH_€', commissionAsset: 'x"y' }),
      fill({ E: Number.NaN, price: new Decimal('1e-12'), qty: new Decimal('-0'), commission: new Decimal('123456789012345678901234567890.5') }),
      fill({ E: -0, commission: new Decimal(Number.NaN), strategy: 'a,"symbol":"b', symbol: '' }),
    ];
    const read = cases.map((e) => lines.line(e));
    // Lines not written by FillLines: other key order, spaces, a missing field.
    read.push('{"strategy":"s","t":1}', '{"t": 1, "strategy":"s"}', '{"t":1,"strategy":"s","symbol":"X","side":"BUY","price":"1","qty":"1","fee":"0","maker":true}');
    for (const line of read) expect(parseFillLine(line)).toStrictEqual(JSON.parse(line));
  });
});
