import { describe, expect, it } from 'vitest';
import { Decimal } from '../core/decimal.js';
import { account } from './fixtures.js';
import type { ExecutionReportEvent } from './events.js';
import { bal, book, makeEngine, place, reports, testSymbol, trades, tryPlace } from './testkit.js';

describe('limit orders and matching', () => {
  it('rests a limit order: NEW report, locked balance, account position and depth diff', () => {
    const e = makeEngine();
    const id = place(e, 'a', 'SELL', { price: '100', quantity: '1' }, 5);
    const ev = e.takeEvents();
    expect(ev.map((x) => x.type)).toEqual(['executionReport', 'outboundAccountPosition', 'depthUpdate']);
    const r = ev[0] as ExecutionReportEvent;
    expect(r).toMatchObject({ accountId: 'a', s: 'BTC_USDT', i: id, c: `sim-${id}`, S: 'SELL', o: 'LIMIT', f: 'GTC', q: '1', p: '100', x: 'NEW', X: 'NEW', z: '0', Z: '0', t: -1, w: true, O: 5, E: 5, eR: 'NONE' });
    expect(ev[1]).toEqual({ type: 'outboundAccountPosition', accountId: 'a', e: 'outboundAccountPosition', E: 5, m: 10, t: 20, b: 0, s: 0, T: true, W: true, D: true, u: 5, B: [{ a: 'BTC', f: '9', l: '1' }] });
    expect(ev[2]).toEqual({ type: 'depthUpdate', symbol: 'BTC_USDT', E: 5, U: 1, u: 1, b: [], a: [['100', '1']] });
    expect(bal(e, 'a')).toEqual({ BTC: '9/1', USDT: '1000/0' });
    expect(book(e)).toEqual({ bids: [], asks: ['100x1'] });
  });

  it('trades at the maker price with maker/taker commission in the received asset and refunds price improvement', () => {
    const e = makeEngine();
    const s = place(e, 'a', 'SELL', { price: '100', quantity: '1' });
    e.takeEvents();
    const b = place(e, 'b', 'BUY', { price: '101', quantity: '0.4' }, 2);
    const ev = e.takeEvents();
    expect(reports(ev)).toEqual([`b ${b} NEW/NEW`, `b ${b} TRADE/FILLED 0.4@100 fee 0.0008 BTC`, `a ${s} TRADE/PARTIALLY_FILLED 0.4@100 fee 0.04 USDT`]);
    expect(trades(ev)).toEqual([`100x0.4 ${b}/${s}`]);
    const taker = ev.find((x): x is ExecutionReportEvent => x.type === 'executionReport' && x.x === 'TRADE' && x.i === b)!;
    expect(taker).toMatchObject({ m: false, t: 1, Z: '40', Y: '40', z: '0.4', l: '0.4', L: '100' });
    expect(bal(e, 'a')).toEqual({ BTC: '9/0.6', USDT: '1039.96/0' });
    expect(bal(e, 'b')).toEqual({ BTC: '10.3992/0', USDT: '960/0' });
    expect(book(e)).toEqual({ bids: [], asks: ['100x0.6'] });
    const positions = ev.filter((x) => x.type === 'outboundAccountPosition').map((x) => x.accountId);
    expect(positions).toEqual(['b', 'a']);
  });

  it('keeps price-time priority: better price first, then older order first', () => {
    const e = makeEngine();
    const s1 = place(e, 'a', 'SELL', { price: '101', quantity: '1' });
    const s2 = place(e, 'a', 'SELL', { price: '100', quantity: '1' });
    const s3 = place(e, 'a', 'SELL', { price: '100', quantity: '1' });
    e.takeEvents();
    place(e, 'b', 'BUY', { price: '101', quantity: '2.5' });
    const ev = e.takeEvents();
    expect(trades(ev).map((t) => t.split(' ')[0]! + t.split('/')[1])).toEqual([`100x1${s2}`, `100x1${s3}`, `101x0.5${s1}`]);
    expect(book(e)).toEqual({ bids: [], asks: ['101x0.5'] });
  });

  it('depth diffs carry consecutive update ids with absolute level quantities', () => {
    const e = makeEngine();
    place(e, 'a', 'SELL', { price: '100', quantity: '1' });
    place(e, 'a', 'SELL', { price: '100', quantity: '2' });
    place(e, 'b', 'BUY', { price: '100', quantity: '0.5' });
    const diffs = e.takeEvents().filter((x) => x.type === 'depthUpdate');
    expect(diffs.map((d) => [d.U, d.u, d.a])).toEqual([
      [1, 1, [['100', '1']]],
      [2, 2, [['100', '3']]],
      [3, 3, [['100', '2.5']]],
    ]);
    expect(e.depth('BTC_USDT').lastUpdateId).toBe(3);
  });
});

describe('market orders', () => {
  it('walks the book by quantity and expires nothing when filled', () => {
    const e = makeEngine();
    place(e, 'a', 'SELL', { price: '100', quantity: '1' });
    place(e, 'a', 'SELL', { price: '102', quantity: '1' });
    e.takeEvents();
    const m = place(e, 'b', 'BUY', { type: 'MARKET', quantity: '1.5' });
    const ev = e.takeEvents();
    expect(reports(ev).filter((r) => r.startsWith('b'))).toEqual([`b ${m} NEW/NEW`, `b ${m} TRADE/PARTIALLY_FILLED 1@100 fee 0.002 BTC`, `b ${m} TRADE/FILLED 0.5@102 fee 0.001 BTC`]);
    expect(bal(e, 'b')).toEqual({ BTC: '11.497/0', USDT: '849/0' });
    expect(e.getOrder('b', { orderId: m })!.executedQuoteQty.toFixed()).toBe('151');
  });

  it('expires the unfilled remainder of a market order', () => {
    const e = makeEngine();
    place(e, 'a', 'BUY', { price: '100', quantity: '0.5' });
    e.takeEvents();
    const m = place(e, 'b', 'SELL', { type: 'MARKET', quantity: '1' });
    expect(reports(e.takeEvents()).filter((r) => r.startsWith('b'))).toEqual([`b ${m} NEW/NEW`, `b ${m} TRADE/PARTIALLY_FILLED 0.5@100 fee 0.1 USDT`, `b ${m} EXPIRED/EXPIRED TIME_IN_FORCE`]);
    expect(bal(e, 'b')).toEqual({ BTC: '9.5/0', USDT: '1049.9/0' });
  });

  it('quoteOrderQty buys the LOT_SIZE quantity whose notional is closest to it (quoteOrderQty.test.ts has the cases)', () => {
    const e = makeEngine();
    place(e, 'a', 'SELL', { price: '100', quantity: '1' });
    place(e, 'a', 'SELL', { price: '300', quantity: '1' });
    // 150 USDT: 1 BTC at 100, then 50/300 = 0.1666..: 1.166 costs 149.8, 1.167 costs 150.1, which is closer.
    const m = place(e, 'b', 'BUY', { type: 'MARKET', quoteOrderQty: '150' });
    const o = e.getOrder('b', { orderId: m })!;
    expect([o.status, o.origQty.toFixed(), o.executedQty.toFixed(), o.executedQuoteQty.toFixed(), o.origQuoteQty.toFixed()]).toEqual(['FILLED', '1.167', '1.167', '150.1', '150']);
    expect(bal(e, 'b').USDT).toBe('849.9/0');
  });

  it('refuses a market order on an empty side and one the balance cannot pay', () => {
    const e = makeEngine();
    expect(tryPlace(e, 'b', 'BUY', { type: 'MARKET', quantity: '1' })).toMatchObject({ ok: false, reason: 'NO_MARKET_LIQUIDITY' });
    place(e, 'a', 'SELL', { price: '900', quantity: '2' });
    const r = tryPlace(e, 'b', 'BUY', { type: 'MARKET', quantity: '2' });
    expect(r).toMatchObject({ ok: false, reason: 'INSUFFICIENT_BALANCE' });
    expect(!r.ok && r.message).toContain('USDT free 1000');
  });
});

describe('time in force and post-only', () => {
  it('IOC trades what it can and expires the rest', () => {
    const e = makeEngine();
    place(e, 'a', 'SELL', { price: '100', quantity: '1' });
    e.takeEvents();
    const b = place(e, 'b', 'BUY', { price: '100', quantity: '3', timeInForce: 'IOC' });
    expect(reports(e.takeEvents()).filter((r) => r.startsWith('b'))).toEqual([`b ${b} NEW/NEW`, `b ${b} TRADE/PARTIALLY_FILLED 1@100 fee 0.002 BTC`, `b ${b} EXPIRED/EXPIRED TIME_IN_FORCE`]);
    expect(bal(e, 'b')).toEqual({ BTC: '10.998/0', USDT: '900/0' });
    expect(book(e)).toEqual({ bids: [], asks: [] });
  });

  it('FOK expires without trading when it cannot fill completely, and fills when it can', () => {
    const e = makeEngine();
    place(e, 'a', 'SELL', { price: '100', quantity: '1' });
    place(e, 'a', 'SELL', { price: '101', quantity: '1' });
    e.takeEvents();
    const f1 = place(e, 'b', 'BUY', { price: '100', quantity: '1.5', timeInForce: 'FOK' });
    expect(reports(e.takeEvents())).toEqual([`b ${f1} NEW/NEW`, `b ${f1} EXPIRED/EXPIRED TIME_IN_FORCE`]);
    expect(bal(e, 'b')).toEqual({ BTC: '10/0', USDT: '1000/0' });
    const f2 = place(e, 'b', 'BUY', { price: '101', quantity: '1.5', timeInForce: 'FOK' });
    expect(e.getOrder('b', { orderId: f2 })!.status).toBe('FILLED');
    expect(book(e)).toEqual({ bids: [], asks: ['101x0.5'] });
  });

  it('refuses LIMIT_MAKER and GTX orders that would take, accepts them when they rest', () => {
    const e = makeEngine();
    place(e, 'a', 'SELL', { price: '100', quantity: '1' });
    expect(tryPlace(e, 'b', 'BUY', { type: 'LIMIT_MAKER', price: '100', quantity: '1' })).toMatchObject({ ok: false, reason: 'LIMIT_MAKER_WOULD_TAKE' });
    expect(tryPlace(e, 'b', 'BUY', { price: '100.5', quantity: '1', timeInForce: 'GTX' })).toMatchObject({ ok: false, reason: 'GTX_WOULD_TAKE' });
    place(e, 'b', 'BUY', { type: 'LIMIT_MAKER', price: '99.99', quantity: '1' });
    place(e, 'b', 'BUY', { price: '99.98', quantity: '1', timeInForce: 'GTX' });
    expect(book(e)).toEqual({ bids: ['99.99x1', '99.98x1'], asks: ['100x1'] });
  });
});

describe('iceberg orders', () => {
  it('shows only the slice, refreshes it at the back of the queue, and fills the hidden part in one sweep', () => {
    const e = makeEngine();
    const ice = place(e, 'a', 'SELL', { price: '100', quantity: '1', icebergQty: '0.3' });
    const other = place(e, 'a', 'SELL', { price: '100', quantity: '0.5' });
    expect(book(e).asks).toEqual(['100x0.8']);
    e.takeEvents();
    // 0.3 from the slice, then 0.5 from the other order (the refreshed slice went behind it), then 0.3 + 0.1.
    place(e, 'b', 'BUY', { price: '100', quantity: '1.2' });
    const sellers = trades(e.takeEvents()).map((t) => `${t.split(' ')[0]}:${t.split('/')[1]}`);
    expect(sellers).toEqual([`100x0.3:${ice}`, `100x0.5:${other}`, `100x0.3:${ice}`, `100x0.1:${ice}`]);
    expect(book(e).asks).toEqual(['100x0.2']);
    expect(e.getOrder('a', { orderId: ice })).toMatchObject({ status: 'PARTIALLY_FILLED' });
    expect(e.getOrder('a', { orderId: ice })!.executedQty.toFixed()).toBe('0.7');
  });

  it('enforces GTC, ICEBERG_PARTS and the symbol switch', () => {
    const e = makeEngine({ symbol: { info: testSymbol([{ filterType: 'ICEBERG_PARTS', limit: 10 }]) } });
    expect(tryPlace(e, 'a', 'SELL', { price: '100', quantity: '1', icebergQty: '0.5', timeInForce: 'IOC' })).toMatchObject({ ok: false, reason: 'ICEBERG_NOT_GTC' });
    const parts = tryPlace(e, 'a', 'SELL', { price: '100', quantity: '1', icebergQty: '0.09' });
    expect(parts).toMatchObject({ ok: false, reason: 'ICEBERG_PARTS' });
    expect(!parts.ok && parts.message).toContain('12 parts');
    expect(tryPlace(e, 'a', 'SELL', { price: '100', quantity: '1', icebergQty: '0.1' }).ok).toBe(true);
    const off = makeEngine({ symbol: { info: testSymbol([], { icebergEnable: false }) } });
    expect(tryPlace(off, 'a', 'SELL', { price: '100', quantity: '1', icebergQty: '0.5' })).toMatchObject({ ok: false, reason: 'ICEBERG_DISABLED' });
  });
});

describe('stop and take-profit orders (rule 5)', () => {
  function withLast(last: string) {
    return makeEngine({ symbol: { lastPrice: new Decimal(last) } });
  }

  it('refuses a stop price the market has already reached, per direction', () => {
    const e = withLast('100');
    // stop-loss sell triggers below the market, so a stop at or above 100 would trigger at once.
    expect(tryPlace(e, 'a', 'SELL', { type: 'STOP_LOSS_LIMIT', price: '99', stopPrice: '100', quantity: '1' })).toMatchObject({ ok: false, reason: 'INVALID_PARAMETER' });
    expect(tryPlace(e, 'a', 'SELL', { type: 'STOP_LOSS_LIMIT', price: '99', stopPrice: '99.5', quantity: '1' }).ok).toBe(true);
    // take-profit buy triggers below the market too; stop-loss buy and take-profit sell above.
    expect(tryPlace(e, 'b', 'BUY', { type: 'TAKE_PROFIT_LIMIT', price: '101', stopPrice: '100.5', quantity: '0.1' })).toMatchObject({ ok: false, reason: 'INVALID_PARAMETER' });
    expect(tryPlace(e, 'b', 'BUY', { type: 'STOP_LOSS', stopPrice: '100.5', quantity: '0.1' }).ok).toBe(true);
    expect(tryPlace(e, 'a', 'SELL', { type: 'TAKE_PROFIT', stopPrice: '99', quantity: '0.1' })).toMatchObject({ ok: false, reason: 'INVALID_PARAMETER' });
  });

  it('a STOP_LOSS_LIMIT sell waits unworking, triggers when a trade reaches the stop, then works as a limit order', () => {
    const e = withLast('100');
    const stop = place(e, 'a', 'SELL', { type: 'STOP_LOSS_LIMIT', price: '98', stopPrice: '99', quantity: '1' });
    const first = e.takeEvents()[0] as ExecutionReportEvent;
    expect(first).toMatchObject({ x: 'NEW', w: false, P: '99', p: '98', o: 'STOP_LOSS_LIMIT' });
    expect(bal(e, 'a').BTC).toBe('9/1');
    expect(book(e)).toEqual({ bids: [], asks: [] });
    place(e, 'b', 'BUY', { price: '98.5', quantity: '2' });
    place(e, 'a', 'SELL', { price: '99.5', quantity: '0.1' });
    // A trade at 98.5 (<= 99) triggers the stop; it sells into the 98.5 bid as a taker.
    const id = place(e, 'a', 'SELL', { price: '98.5', quantity: '0.1' });
    const ev = e.takeEvents();
    expect(reports(ev).filter((r) => r.includes(` ${stop} `))).toEqual([`a ${stop} NEW/NEW`, `a ${stop} TRADE/FILLED 1@98.5 fee 0.197 USDT`]);
    const triggered = ev.find((x): x is ExecutionReportEvent => x.type === 'executionReport' && x.i === stop && x.x === 'NEW')!;
    expect(triggered.w).toBe(true);
    expect(e.getOrder('a', { orderId: id })!.status).toBe('FILLED');
    expect(book(e)).toEqual({ bids: ['98.5x0.9'], asks: ['99.5x0.1'] });
  });

  it('a triggered STOP_LOSS market buy spends up to its reservation plus free balance', () => {
    const e = withLast('100');
    const stop = place(e, 'b', 'BUY', { type: 'STOP_LOSS', stopPrice: '101', quantity: '2' });
    expect(bal(e, 'b').USDT).toBe('798/202');
    place(e, 'a', 'SELL', { price: '101', quantity: '0.5' });
    place(e, 'a', 'SELL', { price: '102', quantity: '3' });
    e.takeEvents();
    place(e, 'b', 'BUY', { price: '101', quantity: '0.5' });
    const ev = e.takeEvents();
    expect(reports(ev).filter((r) => r.includes(` ${stop} `))).toEqual([`b ${stop} NEW/NEW`, `b ${stop} TRADE/FILLED 2@102 fee 0.004 BTC`]);
    expect(bal(e, 'b')).toEqual({ BTC: '12.495/0', USDT: '745.5/0' });
  });
});

describe('OCO lists', () => {
  const eng = () => makeEngine({ symbol: { lastPrice: new Decimal('100') } });

  it('refuses prices outside limit > last > stop for a sell', () => {
    const e = eng();
    const r = e.placeOco({ accountId: 'a', symbol: 'BTC_USDT', side: 'SELL', quantity: '1', price: '99', stopPrice: '98', stopLimitPrice: '97' }, 1);
    expect(r).toMatchObject({ ok: false, reason: 'OCO_PRICE_RELATIONSHIP' });
    const buy = e.placeOco({ accountId: 'b', symbol: 'BTC_USDT', side: 'BUY', quantity: '1', price: '99', stopPrice: '99.5', stopLimitPrice: '100' }, 1);
    expect(buy).toMatchObject({ ok: false, reason: 'OCO_PRICE_RELATIONSHIP' });
    const off = makeEngine({ symbol: { info: testSymbol([], { ocoEnable: false }), lastPrice: new Decimal('100') } });
    expect(off.placeOco({ accountId: 'a', symbol: 'BTC_USDT', side: 'SELL', quantity: '1', price: '101', stopPrice: '99', stopLimitPrice: '98' }, 1)).toMatchObject({ ok: false, reason: 'OCO_DISABLED' });
  });

  it('a fill of the limit leg expires the stop leg and ends the list', () => {
    const e = eng();
    const r = e.placeOco({ accountId: 'a', symbol: 'BTC_USDT', side: 'SELL', quantity: '1', price: '101', stopPrice: '99', stopLimitPrice: '98', listClientId: 'L1' }, 1);
    if (!r.ok) throw new Error(r.message);
    const [lim, stp] = r.list.orders;
    expect(r.list).toMatchObject({ listClientId: 'L1', listStatusType: 'EXEC_STARTED', listOrderStatus: 'EXECUTING' });
    expect([lim!.type, stp!.type, lim!.isWorking, stp!.isWorking]).toEqual(['LIMIT_MAKER', 'STOP_LOSS_LIMIT', true, false]);
    expect(bal(e, 'a').BTC).toBe('9/1');
    const start = e.takeEvents();
    expect(start.filter((x) => x.type === 'listStatus').map((x) => x.type === 'listStatus' && x.L)).toEqual(['EXECUTING']);
    place(e, 'b', 'BUY', { price: '101', quantity: '0.4' });
    const ev = e.takeEvents();
    expect(reports(ev).filter((x) => x.startsWith('a'))).toEqual([`a ${lim!.orderId} TRADE/PARTIALLY_FILLED 0.4@101 fee 0.0404 USDT`, `a ${stp!.orderId} EXPIRED/EXPIRED OCO_OTHER_LEG`]);
    expect(ev.filter((x) => x.type === 'listStatus').map((x) => x.type === 'listStatus' && [x.l, x.L, x.C])).toEqual([['ALL_DONE', 'ALL_DONE', 'L1']]);
    expect(bal(e, 'a').BTC).toBe('9/0.6');
    expect(e.getOrderList('a', r.list.orderListId)!.listOrderStatus).toBe('ALL_DONE');
  });

  it('the stop leg triggering expires the limit leg and keeps the shared lock for itself', () => {
    const e = makeEngine({ symbol: { lastPrice: new Decimal('100') }, accounts: ['a', 'b', 'c'].map((id) => account(id, { USDT: '1000', BTC: '10' })) });
    const r = e.placeOco({ accountId: 'b', symbol: 'BTC_USDT', side: 'BUY', quantity: '1', price: '99', stopPrice: '101', stopLimitPrice: '102' }, 1);
    if (!r.ok) throw new Error(r.message);
    const [lim, stp] = r.list.orders;
    // One lock for both legs: the larger of price and stopLimitPrice.
    expect(bal(e, 'b').USDT).toBe('898/102');
    place(e, 'a', 'SELL', { price: '101', quantity: '0.1' });
    e.takeEvents();
    place(e, 'c', 'BUY', { price: '101', quantity: '0.1' }); // trade at 101 triggers the buy stop
    const ev = e.takeEvents();
    expect(reports(ev).filter((x) => x.startsWith('b'))).toEqual([`b ${lim!.orderId} EXPIRED/EXPIRED OCO_OTHER_LEG`, `b ${stp!.orderId} NEW/NEW`]);
    expect(bal(e, 'b').USDT).toBe('898/102');
    expect(book(e).bids).toEqual(['102x1']);
  });

  it('canceling one leg cancels the whole list', () => {
    const e = eng();
    const r = e.placeOco({ accountId: 'a', symbol: 'BTC_USDT', side: 'SELL', quantity: '1', price: '101', stopPrice: '99', stopLimitPrice: '98' }, 1);
    if (!r.ok) throw new Error(r.message);
    e.takeEvents();
    expect(e.cancelOrder({ accountId: 'a', orderId: r.list.orders[1]!.orderId }, 2).ok).toBe(true);
    expect(reports(e.takeEvents())).toEqual([`a ${r.list.orders[1]!.orderId} CANCELED/CANCELED`, `a ${r.list.orders[0]!.orderId} CANCELED/CANCELED`]);
    expect(bal(e, 'a').BTC).toBe('10/0');
    expect(e.openOrders('a')).toEqual([]);
  });
});
