import { describe, expect, it } from 'vitest';
import { Decimal } from '../core/decimal.js';
import type { FillRecord } from '../store/records.js';
import { formatSummary, positionsOf, RunRejections } from './runStatus.js';
import type { BusEvent } from '../bus/events.js';

const fill = (side: 'BUY' | 'SELL', qty: string, price: string, commission: string, asset: string, strategy = 's.1'): FillRecord => ({
  clientId: 'c',
  strategy,
  orderId: '1',
  symbol: 'BTC_USDT',
  side,
  tradeId: '1',
  price: new Decimal(price),
  qty: new Decimal(qty),
  quoteQty: new Decimal(qty).mul(price),
  commission: new Decimal(commission),
  commissionAsset: asset,
  isMaker: true,
  time: 0,
  source: 'test',
});

describe('positionsOf', () => {
  it('nets positions and cash exactly, fees in the asset they were paid in', () => {
    const books = positionsOf(
      [
        fill('BUY', '0.003', '60000.01', '0.000003', 'BTC'),
        fill('SELL', '0.001', '60010.02', '0.0450075', 'USDT'),
        fill('SELL', '0.001', '60010.02', '1', 'BNB'),
        fill('BUY', '5', '1', '0', 'USDT', 'other.1'),
      ],
      ['s.1'],
    );
    const b = books.get('s.1 BTC_USDT');
    expect(b?.position.toFixed()).toBe('0.000997');
    // -180.00003 + 60.01002 - 0.0450075 + 60.01002
    expect(b?.cash.toFixed()).toBe('-60.0249975');
    expect(b?.otherFees.get('BNB')?.toFixed()).toBe('1');
    expect(b?.fills).toBe(3);
    expect(books.has('other.1 BTC_USDT')).toBe(false);
  });
});

describe('RunRejections', () => {
  it("counts a simulated venue's refusal of a sent order once, as the venue's (its intentRejected and the order's REJECTED are one refusal)", () => {
    const sent = new Set(['c1:i1']);
    const r = new RunRejections(['a'], (clientId, intentId) => sent.has(`${clientId}:${intentId}`));
    const intent = (clientId: string, intentId: string) => ({ kind: 'place', strategy: 'a', intentId, clientId });
    r.onEvent({ type: 'intentRejected', E: 0, strategy: 'a', intent: intent('c1', 'i1'), reason: 'INSUFFICIENT_BALANCE', message: 'Account has insufficient balance' } as unknown as BusEvent);
    r.onEvent({ type: 'orderUpdate', E: 0, strategy: 'a', clientId: 'c1', state: 'REJECTED', reason: 'INSUFFICIENT_BALANCE: Account has insufficient balance' } as unknown as BusEvent);
    // A risk refusal reusing a clientId names an order of another intent: still the checker's.
    r.onEvent({ type: 'intentRejected', E: 0, strategy: 'a', intent: intent('c1', 'i2'), reason: 'DUPLICATE_CLIENT_ID', message: 'clientId already used' } as unknown as BusEvent);
    expect(r.byStrategy().a?.map((c) => `${c.source} ${c.reason} ${c.count}`)).toEqual(['risk DUPLICATE_CLIENT_ID 1', 'venue INSUFFICIENT_BALANCE 1']);
  });

  it('counts risk refusals and each rejected order once, by strategy and reason, into the summary', () => {
    const r = new RunRejections(['a', 'b']);
    const refused = (strategy: string, reason: string, message: string) => ({ type: 'intentRejected', E: 0, strategy, intent: { kind: 'place', strategy, intentId: 'i', clientId: 'x' }, reason, message }) as unknown as BusEvent;
    const rejected = (clientId: string, reason: string) => ({ type: 'orderUpdate', E: 0, strategy: 'a', clientId, state: 'REJECTED', reason }) as unknown as BusEvent;
    r.onEvent(refused('a', 'LOT_SIZE', 'quantity=0.0001 is not a multiple of stepSize 0.001'));
    r.onEvent(refused('a', 'LOT_SIZE', 'quantity=0.0002 is not a multiple of stepSize 0.001'));
    r.onEvent(refused('other', 'LOT_SIZE', 'not ours'));
    r.onEvent(rejected('c1', 'INSUFFICIENT_BALANCE'));
    r.onEvent(rejected('c1', 'INSUFFICIENT_BALANCE'));
    expect(r.byStrategy()).toEqual({
      a: [
        { source: 'risk', reason: 'LOT_SIZE', count: 2, example: 'quantity=0.0001 is not a multiple of stepSize 0.001' },
        { source: 'venue', reason: 'INSUFFICIENT_BALANCE', count: 1, example: 'INSUFFICIENT_BALANCE' },
      ],
      b: [],
    });
    const text = formatSummary({ reason: 'duration', durationSec: 1, orders: {}, fills: 0, strategies: [], failures: [], ordersLeft: 0, rejections: r.byStrategy() });
    expect(text).toContain('  a refused: LOT_SIZE 2, venue INSUFFICIENT_BALANCE 1 (first: quantity=0.0001 is not a multiple of stepSize 0.001)\n');
    expect(text).not.toContain('b refused');
  });
});
