/**
 * MARKET buys by quoteOrderQty (spec rule 4): the LOT_SIZE/MARKET_LOT_SIZE quantity whose notional on
 * the current book is closest to quoteOrderQty; a tie, or a closer step up the free balance cannot
 * pay, takes the quantity below. The order locks exactly what its quantity costs.
 */
import { describe, expect, it } from 'vitest';
import { Decimal } from '../core/decimal.js';
import type { MatchingEngine } from './engine.js';
import type { ExecutionReportEvent } from './events.js';
import { account } from './fixtures.js';
import { bal, book, makeEngine, place, reports, testSymbol, trades, tryPlace } from './testkit.js';

/** Asks of account a: 1 BTC at 100 and 1 at 300 (order ids 1 and 2). */
function ladder(e: MatchingEngine): MatchingEngine {
  place(e, 'a', 'SELL', { price: '100', quantity: '1' });
  place(e, 'a', 'SELL', { price: '300', quantity: '1' });
  e.takeEvents();
  return e;
}

/** The quoteOrderQty order's view: status, origQty, executedQty, executedQuoteQty, origQuoteQty. */
function view(e: MatchingEngine, acct: string, id: string): string[] {
  const o = e.getOrder(acct, { orderId: id })!;
  return [o.status, o.origQty.toFixed(), o.executedQty.toFixed(), o.executedQuoteQty.toFixed(), o.origQuoteQty.toFixed()];
}

const buy = (quoteOrderQty: string, extra: Record<string, string> = {}): Record<string, string> => ({ type: 'MARKET', quoteOrderQty, ...extra });

describe('quoteOrderQty market buy: the closest notional', () => {
  // 150 at 100 then 300: 1.166 costs 149.8, 1.167 costs 150.1.
  it('takes one step more when that notional is closer (150.1 is 0.1 above 150, 149.8 is 0.2 below)', () => {
    const e = ladder(makeEngine());
    const m = place(e, 'b', 'BUY', buy('150'));
    const ev = e.takeEvents();
    expect(reports(ev)).toEqual([
      `b ${m} NEW/NEW`,
      `b ${m} TRADE/PARTIALLY_FILLED 1@100 fee 0.002 BTC`,
      'a 1 TRADE/FILLED 1@100 fee 0.1 USDT',
      `b ${m} TRADE/FILLED 0.167@300 fee 0.000334 BTC`,
      'a 2 TRADE/PARTIALLY_FILLED 0.167@300 fee 0.0501 USDT',
    ]);
    expect(trades(ev)).toEqual([`100x1 ${m}/1`, `300x0.167 ${m}/2`]);
    // The user stream carries the chosen quantity as q and the amount spent as Z.
    const own = ev.filter((x): x is ExecutionReportEvent => x.type === 'executionReport' && x.i === m);
    expect(own.map((r) => [r.x, r.q, r.z, r.Z])).toEqual([
      ['NEW', '1.167', '0', '0'],
      ['TRADE', '1.167', '1', '100'],
      ['TRADE', '1.167', '1.167', '150.1'],
    ]);
    expect(view(e, 'b', m)).toEqual(['FILLED', '1.167', '1.167', '150.1', '150']);
    expect(bal(e, 'b')).toEqual({ BTC: '11.164666/0', USDT: '849.9/0' });
    expect(bal(e, 'a')).toEqual({ BTC: '8/0.833', USDT: '1149.9499/0' });
    expect(book(e)).toEqual({ bids: [], asks: ['300x0.833'] });
  });

  it('keeps the rounded-down quantity when its notional is closer (149.8 is 0.1 below 149.9)', () => {
    const e = ladder(makeEngine());
    const m = place(e, 'b', 'BUY', buy('149.9'));
    const ev = e.takeEvents();
    expect(reports(ev).filter((r) => r.startsWith('b'))).toEqual([`b ${m} NEW/NEW`, `b ${m} TRADE/PARTIALLY_FILLED 1@100 fee 0.002 BTC`, `b ${m} TRADE/FILLED 0.166@300 fee 0.000332 BTC`]);
    expect(trades(ev)).toEqual([`100x1 ${m}/1`, `300x0.166 ${m}/2`]);
    expect(view(e, 'b', m)).toEqual(['FILLED', '1.166', '1.166', '149.8', '149.9']);
    expect(bal(e, 'b')).toEqual({ BTC: '11.163668/0', USDT: '850.2/0' });
    expect(book(e)).toEqual({ bids: [], asks: ['300x0.834'] });
  });

  it('takes the smaller quantity on an exact tie (149.8 and 150.1 are both 0.15 from 149.95)', () => {
    const e = ladder(makeEngine());
    const m = place(e, 'b', 'BUY', buy('149.95'));
    expect(reports(e.takeEvents()).filter((r) => r.startsWith('b'))).toEqual([`b ${m} NEW/NEW`, `b ${m} TRADE/PARTIALLY_FILLED 1@100 fee 0.002 BTC`, `b ${m} TRADE/FILLED 0.166@300 fee 0.000332 BTC`]);
    expect(view(e, 'b', m)).toEqual(['FILLED', '1.166', '1.166', '149.8', '149.95']);
    expect(bal(e, 'b')).toEqual({ BTC: '11.163668/0', USDT: '850.2/0' });
    expect(book(e)).toEqual({ bids: [], asks: ['300x0.834'] });
  });

  it('takes the smaller quantity when the free balance cannot pay the closer one, and the closer one when it just can', () => {
    const short = ladder(makeEngine({ accounts: [account('a', { USDT: '1000', BTC: '10' }), account('b', { USDT: '150', BTC: '0' })] }));
    const m = place(short, 'b', 'BUY', buy('150'));
    expect(reports(short.takeEvents()).filter((r) => r.startsWith('b'))).toEqual([`b ${m} NEW/NEW`, `b ${m} TRADE/PARTIALLY_FILLED 1@100 fee 0.002 BTC`, `b ${m} TRADE/FILLED 0.166@300 fee 0.000332 BTC`]);
    expect(view(short, 'b', m)).toEqual(['FILLED', '1.166', '1.166', '149.8', '150']);
    expect(bal(short, 'b')).toEqual({ BTC: '1.163668/0', USDT: '0.2/0' });
    expect(book(short)).toEqual({ bids: [], asks: ['300x0.834'] });

    const exact = ladder(makeEngine({ accounts: [account('a', { USDT: '1000', BTC: '10' }), account('b', { USDT: '150.1', BTC: '0' })] }));
    const n = place(exact, 'b', 'BUY', buy('150'));
    expect(view(exact, 'b', n)).toEqual(['FILLED', '1.167', '1.167', '150.1', '150']);
    expect(bal(exact, 'b')).toEqual({ BTC: '1.164666/0', USDT: '0/0' });
  });

  it('accepts a budget above the free balance when the chosen quantity is affordable, and names what it needs when not', () => {
    // 149.8 for 1.166 is the nearest the free 149.9 can pay; the order never needs the budget itself.
    const e = ladder(makeEngine({ accounts: [account('a', { USDT: '1000', BTC: '10' }), account('b', { USDT: '149.9', BTC: '0' })] }));
    const m = place(e, 'b', 'BUY', buy('150'));
    expect(view(e, 'b', m)).toEqual(['FILLED', '1.166', '1.166', '149.8', '150']);
    expect(bal(e, 'b')).toEqual({ BTC: '1.163668/0', USDT: '0.1/0' });

    const poor = ladder(makeEngine({ accounts: [account('a', { USDT: '1000', BTC: '10' }), account('b', { USDT: '149.7', BTC: '0' })] }));
    const r = tryPlace(poor, 'b', 'BUY', buy('150'));
    expect(r).toMatchObject({ ok: false, reason: 'INSUFFICIENT_BALANCE' });
    expect(!r.ok && r.message).toBe('USDT free 149.7 is below the 149.8 this order needs');
    expect(poor.takeEvents()).toEqual([]);
    expect(bal(poor, 'b')).toEqual({ BTC: '0/0', USDT: '149.7/0' });
  });

  it('does not step up beyond LOT_SIZE maxQty', () => {
    const e = ladder(makeEngine({ symbol: { info: testSymbol([{ filterType: 'LOT_SIZE', minQty: '0.001', maxQty: '1.166', stepSize: '0.001' }]) } }));
    const m = place(e, 'b', 'BUY', buy('150'));
    expect(reports(e.takeEvents()).filter((r) => r.startsWith('b'))).toEqual([`b ${m} NEW/NEW`, `b ${m} TRADE/PARTIALLY_FILLED 1@100 fee 0.002 BTC`, `b ${m} TRADE/FILLED 0.166@300 fee 0.000332 BTC`]);
    expect(view(e, 'b', m)).toEqual(['FILLED', '1.166', '1.166', '149.8', '150']);
    expect(bal(e, 'b')).toEqual({ BTC: '11.163668/0', USDT: '850.2/0' });
    expect(book(e)).toEqual({ bids: [], asks: ['300x0.834'] });
  });

  it('steps by MARKET_LOT_SIZE: 1.16 (148) or 1.17 (151), whichever is closer, the smaller on a tie', () => {
    const mlot = { symbol: { info: testSymbol([{ filterType: 'MARKET_LOT_SIZE', minQty: '0.01', maxQty: '100', stepSize: '0.01' }]) } };
    const up = ladder(makeEngine(mlot));
    const m = place(up, 'b', 'BUY', buy('150'));
    expect(reports(up.takeEvents()).filter((r) => r.startsWith('b'))).toEqual([`b ${m} NEW/NEW`, `b ${m} TRADE/PARTIALLY_FILLED 1@100 fee 0.002 BTC`, `b ${m} TRADE/FILLED 0.17@300 fee 0.00034 BTC`]);
    expect(view(up, 'b', m)).toEqual(['FILLED', '1.17', '1.17', '151', '150']);
    expect(bal(up, 'b')).toEqual({ BTC: '11.16766/0', USDT: '849/0' });
    expect(book(up)).toEqual({ bids: [], asks: ['300x0.83'] });
    for (const [budget, qty, spent] of [['149', '1.16', '148'], ['149.5', '1.16', '148']] as const) {
      const e = ladder(makeEngine(mlot));
      const id = place(e, 'b', 'BUY', buy(budget));
      expect(view(e, 'b', id), budget).toEqual(['FILLED', qty, qty, spent, budget]);
    }
  });

  it('walks onto the next level for the extra step', () => {
    const e = makeEngine();
    place(e, 'a', 'SELL', { price: '100', quantity: '1.5' });
    place(e, 'a', 'SELL', { price: '200', quantity: '1' });
    e.takeEvents();
    // 1.5 costs 150 (0.15 below 150.15), 1.501 costs 150.2 (0.05 above).
    const m = place(e, 'b', 'BUY', buy('150.15'));
    const ev = e.takeEvents();
    expect(reports(ev).filter((r) => r.startsWith('b'))).toEqual([`b ${m} NEW/NEW`, `b ${m} TRADE/PARTIALLY_FILLED 1.5@100 fee 0.003 BTC`, `b ${m} TRADE/FILLED 0.001@200 fee 0.000002 BTC`]);
    expect(trades(ev)).toEqual([`100x1.5 ${m}/1`, `200x0.001 ${m}/2`]);
    expect(view(e, 'b', m)).toEqual(['FILLED', '1.501', '1.501', '150.2', '150.15']);
    expect(bal(e, 'b')).toEqual({ BTC: '11.497998/0', USDT: '849.8/0' });
    expect(book(e)).toEqual({ bids: [], asks: ['200x0.999'] });
  });

  it('counts replayed liquidity ahead of an own ask, and fills exactly a step grid quantity across replayed levels finer than the step', () => {
    const e = makeEngine();
    e.applyDepthSnapshot('BTC_USDT', { bids: [], asks: [{ price: '100', qty: '0.5' }, { price: '300', qty: '1' }] }, 1);
    place(e, 'a', 'SELL', { price: '100', quantity: '0.5' });
    e.takeEvents();
    const m = place(e, 'b', 'BUY', buy('150'));
    const ev = e.takeEvents();
    expect(reports(ev)).toEqual([
      `b ${m} NEW/NEW`,
      `b ${m} TRADE/PARTIALLY_FILLED 0.5@100 fee 0.001 BTC`,
      `b ${m} TRADE/PARTIALLY_FILLED 0.5@100 fee 0.001 BTC`,
      'a 1 TRADE/FILLED 0.5@100 fee 0.05 USDT',
      `b ${m} TRADE/FILLED 0.167@300 fee 0.000334 BTC`,
    ]);
    expect(trades(ev)).toEqual([`100x0.5 ${m}/0`, `100x0.5 ${m}/1`, `300x0.167 ${m}/0`]);
    expect(view(e, 'b', m)).toEqual(['FILLED', '1.167', '1.167', '150.1', '150']);
    expect(bal(e, 'b')).toEqual({ BTC: '11.164666/0', USDT: '849.9/0' });
    expect(book(e)).toEqual({ bids: [], asks: ['300x0.833'] });

    // 0.051 costs 5.1495, 0.052 costs 5.2505: the lock is exactly 5.2505, and 0.0505 at 101 is what it pays for there.
    const fine = makeEngine({ symbol: { quantityDecimals: 4 } });
    fine.applyDepthSnapshot('BTC_USDT', { bids: [], asks: [{ price: '100', qty: '0.0015' }, { price: '101', qty: '1' }] }, 1);
    const f = place(fine, 'b', 'BUY', buy('5.21'));
    expect(reports(fine.takeEvents())).toEqual([`b ${f} NEW/NEW`, `b ${f} TRADE/PARTIALLY_FILLED 0.0015@100 fee 0.000003 BTC`, `b ${f} TRADE/FILLED 0.0505@101 fee 0.000101 BTC`]);
    expect(view(fine, 'b', f)).toEqual(['FILLED', '0.052', '0.052', '5.2505', '5.21']);
    expect(bal(fine, 'b')).toEqual({ BTC: '10.051896/0', USDT: '994.7495/0' });
    expect(book(fine)).toEqual({ bids: [], asks: ['101x0.9495'] });
  });

  it('does not step up onto liquidity outside PRICE_RANGE', () => {
    const rule = { symbol: 'BTC_USDT', bidLimitMultUp: new Decimal('1.01'), askLimitMultDown: new Decimal('0.99') };
    const asks = (e: MatchingEngine): MatchingEngine => {
      place(e, 'a', 'SELL', { price: '100', quantity: '1' });
      place(e, 'a', 'SELL', { price: '102', quantity: '1' });
      e.takeEvents();
      return e;
    };
    // 1 costs 100 (0.06 below 100.06); 1.001 would cost 100.102 (0.042 above) but 102 is beyond 101.
    const ranged = asks(makeEngine({ symbol: { priceRange: rule, referencePrice: new Decimal('100') } }));
    const m = place(ranged, 'b', 'BUY', buy('100.06'));
    expect(reports(ranged.takeEvents()).filter((r) => r.startsWith('b'))).toEqual([`b ${m} NEW/NEW`, `b ${m} TRADE/FILLED 1@100 fee 0.002 BTC`]);
    expect(view(ranged, 'b', m)).toEqual(['FILLED', '1', '1', '100', '100.06']);
    expect(bal(ranged, 'b')).toEqual({ BTC: '10.998/0', USDT: '900/0' });
    const open = asks(makeEngine());
    expect(view(open, 'b', place(open, 'b', 'BUY', buy('100.06')))).toEqual(['FILLED', '1.001', '1.001', '100.102', '100.06']);
  });

  it('releases the rest of its exact lock when self-trade prevention stops it early', () => {
    const e = makeEngine();
    place(e, 'a', 'SELL', { price: '100', quantity: '1' });
    place(e, 'b', 'SELL', { price: '300', quantity: '0.1' });
    place(e, 'a', 'SELL', { price: '300', quantity: '1' });
    e.takeEvents();
    // The book (own ask included) gives 1.167 for 150.1; b's own ask at 300 stops it after the first level.
    const m = place(e, 'b', 'BUY', buy('150', { stpMode: 'EXPIRE_TAKER' }));
    expect(reports(e.takeEvents())).toEqual([`b ${m} NEW/NEW`, `b ${m} TRADE/PARTIALLY_FILLED 1@100 fee 0.002 BTC`, 'a 1 TRADE/FILLED 1@100 fee 0.1 USDT', `b ${m} EXPIRED/EXPIRED SELF_TRADE_PREVENTION`]);
    expect(view(e, 'b', m)).toEqual(['EXPIRED', '1.167', '1', '100', '150']);
    expect(bal(e, 'b')).toEqual({ BTC: '10.898/0.1', USDT: '900/0' });
    expect(book(e)).toEqual({ bids: [], asks: ['300x1.1'] });
  });

  it('refuses a budget below the minimum quantity as before (LOT_SIZE)', () => {
    const e = ladder(makeEngine({ symbol: { info: testSymbol([{ filterType: 'LOT_SIZE', minQty: '0.1', maxQty: '1000', stepSize: '0.001' }]) } }));
    const r = tryPlace(e, 'b', 'BUY', buy('9.99'));
    expect(r).toMatchObject({ ok: false, reason: 'LOT_SIZE' });
    expect(!r.ok && r.message).toContain('quoteOrderQty 9.99');
    expect(bal(e, 'b')).toEqual({ BTC: '10/0', USDT: '1000/0' });
  });
});
