import { describe, expect, it } from 'vitest';
import { Decimal } from '../core/decimal.js';
import type { BookLevel } from '../core/types.js';
import { bal, book, makeEngine, place, reports, trades } from './testkit.js';

const lv = (p: string, q: string): BookLevel => ({ price: new Decimal(p), qty: new Decimal(q) });
const T = (p: string, q: string, isBuyerMaker: boolean) => ({ price: new Decimal(p), qty: new Decimal(q), isBuyerMaker });

describe('replayed liquidity', () => {
  it('a snapshot seeds the book; own takers trade against replayed levels as against anyone', () => {
    const e = makeEngine();
    e.applyDepthSnapshot('BTC_USDT', { bids: [lv('99', '2'), lv('98', '1')], asks: [lv('100', '1'), lv('101', '3')] }, 1);
    expect(book(e)).toEqual({ bids: ['99x2', '98x1'], asks: ['100x1', '101x3'] });
    const ev0 = e.takeEvents();
    expect(ev0.filter((x) => x.type === 'depthUpdate')).toHaveLength(1);
    const id = place(e, 'b', 'BUY', { price: '101', quantity: '1.5' }, 2);
    const ev = e.takeEvents();
    expect(trades(ev)).toEqual([`100x1 ${id}/0`, `101x0.5 ${id}/0`]);
    expect(reports(ev)).toEqual([`b ${id} NEW/NEW`, `b ${id} TRADE/PARTIALLY_FILLED 1@100 fee 0.002 BTC`, `b ${id} TRADE/FILLED 0.5@101 fee 0.001 BTC`]);
    expect(bal(e, 'b')).toEqual({ BTC: '11.497/0', USDT: '849.5/0' });
    expect(book(e).asks).toEqual(['101x2.5']);
    // A later snapshot replaces the replayed quantities; own orders stay.
    place(e, 'a', 'SELL', { price: '105', quantity: '1' }, 3);
    e.applyDepthSnapshot('BTC_USDT', { bids: [lv('97', '1')], asks: [lv('105', '2')] }, 4);
    expect(book(e)).toEqual({ bids: ['97x1'], asks: ['105x3'] });
  });

  it('an own order queues behind the replayed quantity at its level; replayed trades at that price eat the queue first', () => {
    const e = makeEngine();
    e.applyDepthSnapshot('BTC_USDT', { bids: [lv('100', '2')], asks: [lv('101', '1')] }, 1);
    const id = place(e, 'b', 'BUY', { price: '100', quantity: '1' }, 2);
    expect(book(e).bids).toEqual(['100x3']);
    e.takeEvents();
    e.applyTrade('BTC_USDT', T('100', '1.5', true), 3);
    let ev = e.takeEvents();
    expect(reports(ev)).toEqual([]);
    expect(trades(ev)).toEqual(['100x1.5 0/0 m']);
    // 0.5 is still ahead of us: a 1.0 trade fills 0.5 of ours.
    e.applyTrade('BTC_USDT', T('100', '1', true), 4);
    ev = e.takeEvents();
    expect(reports(ev)).toEqual([`b ${id} TRADE/PARTIALLY_FILLED 0.5@100 fee 0.0005 BTC`]);
    expect(ev.find((x) => x.type === 'executionReport')).toMatchObject({ m: true });
    expect(bal(e, 'b')).toEqual({ BTC: '10.4995/0', USDT: '900/50' });
    expect(e.lastPrice('BTC_USDT')!.toFixed()).toBe('100');
  });

  it('a level that shrinks caps the queue ahead (cancellations are assumed behind us); growth queues behind us', () => {
    const e = makeEngine();
    e.applyDepthSnapshot('BTC_USDT', { bids: [lv('100', '2')], asks: [] }, 1);
    const id = place(e, 'b', 'BUY', { price: '100', quantity: '1' }, 2);
    e.applyDepthDiff('BTC_USDT', { bids: [lv('100', '0.5')], asks: [] }, 3);
    e.applyDepthDiff('BTC_USDT', { bids: [lv('100', '4')], asks: [] }, 4);
    expect(book(e).bids).toEqual(['100x5']);
    e.takeEvents();
    e.applyTrade('BTC_USDT', T('100', '1', true), 5);
    expect(reports(e.takeEvents())).toEqual([`b ${id} TRADE/PARTIALLY_FILLED 0.5@100 fee 0.0005 BTC`]);
  });

  it('a replayed trade through a better own price fills it fully at the own price, without the queue', () => {
    const e = makeEngine();
    e.applyDepthSnapshot('BTC_USDT', { bids: [lv('100', '5')], asks: [lv('103', '1')] }, 1);
    const id = place(e, 'b', 'BUY', { price: '101', quantity: '0.3' }, 2);
    e.takeEvents();
    e.applyTrade('BTC_USDT', T('100', '1', true), 3);
    expect(reports(e.takeEvents())).toEqual([`b ${id} TRADE/FILLED 0.3@101 fee 0.0003 BTC`]);
    expect(bal(e, 'b')).toEqual({ BTC: '10.2997/0', USDT: '969.7/0' });
  });

  it('replayed liquidity that crosses an own resting order trades with it at the own price', () => {
    const e = makeEngine();
    e.applyDepthSnapshot('BTC_USDT', { bids: [lv('98', '1')], asks: [lv('102', '1')] }, 1);
    const id = place(e, 'b', 'BUY', { price: '100', quantity: '1' }, 2);
    e.takeEvents();
    e.applyDepthDiff('BTC_USDT', { bids: [], asks: [lv('99.5', '0.4')] }, 3);
    const ev = e.takeEvents();
    expect(reports(ev)).toEqual([`b ${id} TRADE/PARTIALLY_FILLED 0.4@100 fee 0.0004 BTC`]);
    expect(book(e)).toEqual({ bids: ['100x0.6', '98x1'], asks: ['102x1'] });
    const d = ev.filter((x) => x.type === 'depthUpdate');
    expect(d).toHaveLength(1);
  });

  it('an own taker takes the replayed quantity ahead of an own maker first, then the maker', () => {
    const e = makeEngine();
    e.applyDepthSnapshot('BTC_USDT', { bids: [], asks: [lv('100', '1')] }, 1);
    const m = place(e, 'a', 'SELL', { price: '100', quantity: '1' }, 2);
    e.applyDepthDiff('BTC_USDT', { bids: [], asks: [lv('100', '1.2')] }, 3);
    e.takeEvents();
    const t = place(e, 'b', 'BUY', { price: '100', quantity: '1.5' }, 4);
    expect(trades(e.takeEvents())).toEqual([`100x1 ${t}/0`, `100x0.5 ${t}/${m}`]);
    // The 0.2 that arrived after our maker is still there, behind it.
    expect(book(e).asks).toEqual(['100x0.7']);
  });

  it('replayed trades move the last price and trigger stops', () => {
    const e = makeEngine({ symbol: { lastPrice: new Decimal('100') } });
    const s = place(e, 'a', 'SELL', { type: 'STOP_LOSS', stopPrice: '99', quantity: '0.5' }, 1);
    e.applyDepthSnapshot('BTC_USDT', { bids: [lv('98', '2')], asks: [lv('100', '1')] }, 2);
    e.takeEvents();
    e.applyTrade('BTC_USDT', T('99', '0.1', true), 3);
    expect(reports(e.takeEvents())).toEqual([`a ${s} NEW/NEW`, `a ${s} TRADE/FILLED 0.5@98 fee 0.098 USDT`]);
    expect(book(e).bids).toEqual(['98x1.5']);
  });
});

describe('replayed data as wire strings', () => {
  it('levels and trades given as plain decimal strings act exactly as the same Decimals', () => {
    const run = (asStrings: boolean): unknown[] => {
      const e = makeEngine();
      const L = (p: string, q: string) => (asStrings ? { price: p, qty: q } : lv(p, q));
      e.applyDepthSnapshot('BTC_USDT', { bids: [L('99', '2'), L('98.5', '1')], asks: [L('100', '1.25'), L('101', '3')] }, 1);
      place(e, 'b', 'BUY', { price: '99', quantity: '1' }, 2);
      e.applyDepthDiff('BTC_USDT', { bids: [L('98.5', '0')], asks: [L('99', '0.4')] }, 3);
      e.applyTrade('BTC_USDT', asStrings ? { price: '99', qty: '2.3', isBuyerMaker: true } : T('99', '2.3', true), 4);
      return [e.takeEvents(), book(e), bal(e, 'b')];
    };
    const viaStrings = run(true);
    expect(viaStrings).toEqual(run(false));
    // The ask at 99 crosses our bid (0.4 fills, the stale replayed bid goes); the trade fills the other 0.6.
    expect(viaStrings.slice(1)).toEqual([{ bids: [], asks: ['100x1.25', '101x3'] }, { BTC: '10.999/0', USDT: '901/0' }]);
  });

  it('refuses a replayed string that is not a plain decimal or is finer than the scales', () => {
    const e = makeEngine();
    expect(() => e.applyDepthDiff('BTC_USDT', { bids: [{ price: '1e3', qty: '1' }], asks: [] }, 1)).toThrow(/replayed level 1e3 x 1/);
    expect(() => e.applyDepthDiff('BTC_USDT', { bids: [{ price: '100', qty: '0.0001' }], asks: [] }, 1)).toThrow(/does not fit/);
  });
});
