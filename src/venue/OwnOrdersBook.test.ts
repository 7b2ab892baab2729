import { describe, expect, it } from 'vitest';
import { Decimal } from '../core/decimal.js';
import type { BookLevel } from '../core/types.js';
import { OrderBook } from '../exchange/book/order-book.js';
import type { OwnOrderView } from '../strategy/types.js';
import { booksWithOwnOrders, OwnOrdersBook, ownOrdersOfRunner } from './OwnOrdersBook.js';

const d = (s: string) => new Decimal(s);
const text = (ls: readonly BookLevel[]) => ls.map((l) => `${l.price.toFixed()}x${l.qty.toFixed()}`).join(' ');

function market(): OrderBook {
  const b = new OrderBook('BTC_USDT');
  b.loadSnapshot(
    7,
    [
      ['100', '1'],
      ['99', '2'],
      ['98', '3'],
    ],
    [
      ['101', '1'],
      ['102', '2'],
      ['103', '3'],
    ],
  );
  b.setReady(true);
  return b;
}

const order = (clientId: string, side: 'BUY' | 'SELL', price: string, qty: string, over: Partial<OwnOrderView> = {}): OwnOrderView => ({
  clientId,
  orderId: '1',
  symbol: 'BTC_USDT',
  side,
  orderType: 'LIMIT',
  state: 'NEW',
  price: d(price),
  quantity: d(qty),
  cumQty: d('0'),
  ...over,
});

describe('OwnOrdersBook: the market book with our resting orders in it', () => {
  it('without resting orders it reads exactly as the market book', () => {
    const m = market();
    const v = new OwnOrdersBook(m, () => [order('p', 'BUY', '100.5', '1', { state: 'PENDING' }), order('s', 'SELL', '100.5', '1', { orderType: 'STOP_LOSS_LIMIT' })]);
    expect([v.symbol, v.ready, v.lastUpdateId]).toEqual(['BTC_USDT', true, 7]);
    expect(v.bestBid()).toEqual(m.bestBid());
    expect(v.bestAsk()).toEqual(m.bestAsk());
    expect(v.top(5)).toEqual(m.top(5));
    expect(v.costToFill('BUY', d('2'))).toEqual(m.costToFill('BUY', d('2')));
  });

  it('a resting order inside the spread is the touch; at a level it adds to it; a partly filled one counts what is left', () => {
    const own = [order('a', 'BUY', '100.5', '0.4'), order('b', 'BUY', '99', '0.5', { state: 'PARTIALLY_FILLED', cumQty: d('0.2') }), order('c', 'SELL', '101', '2', { orderType: 'LIMIT_MAKER' }), order('f', 'SELL', '100.9', '1', { state: 'FILLED', cumQty: d('1') })];
    const v = new OwnOrdersBook(market(), () => own);
    expect(text([v.bestBid()!])).toBe('100.5x0.4');
    expect(text([v.bestAsk()!])).toBe('101x3');
    const t = v.top(3);
    expect(text(t.bids)).toBe('100.5x0.4 100x1 99x2.3');
    expect(text(t.asks)).toBe('101x3 102x2 103x3');
    const b = v.band(d('99'), d('101.5'));
    expect(text(b.bids)).toBe('100.5x0.4 100x1 99x2.3');
    expect(text(b.asks)).toBe('101x3');
    // Selling 1.2 into the bids takes ours at 100.5 first (live, self-trade prevention would stop it; the book shows it).
    const c = v.costToFill('SELL', d('1.2'));
    expect([c.filledQty.toFixed(), c.quoteQty.toFixed(), c.worstPrice?.toFixed()]).toEqual(['1.2', '120.2', '100']);
    // Our orders never fill more than the book holds.
    expect(v.costToFill('BUY', d('100')).filledQty.toFixed()).toBe('8');
  });

  it('ownOrdersOfRunner: every strategy of the runner counts (one account), one view per market book', () => {
    const m = market();
    const open: Record<string, OwnOrderView[]> = { s1: [order('a', 'BUY', '100.2', '1')], s2: [order('b', 'BUY', '100.2', '2'), { ...order('x', 'BUY', '100.7', '1'), symbol: 'ETH_USDT' }] };
    const runner = { names: ['s1', 's2'], book: (n: string) => ({ openCount: () => open[n]!.length, openOrders: (sym?: string) => open[n]!.filter((o) => sym === undefined || o.symbol === sym) }) };
    const books = booksWithOwnOrders((s) => (s === 'BTC_USDT' ? m : undefined), ownOrdersOfRunner(() => runner));
    expect(text([books('BTC_USDT')!.bestBid()!])).toBe('100.2x3');
    expect(books('BTC_USDT')).toBe(books('BTC_USDT'));
    expect(books('ETH_USDT')).toBeUndefined();
    // Before the runner exists: the market book as it is.
    expect(booksWithOwnOrders(() => m, ownOrdersOfRunner(() => undefined))('BTC_USDT')!.bestBid()).toEqual(m.bestBid());
  });

  it('keeps its best levels while the source gives the same list, and reads a new list anew', () => {
    let list: readonly OwnOrderView[] = [order('a', 'BUY', '100.5', '0.4')];
    const v = new OwnOrdersBook(market(), () => list);
    const first = v.bestBid();
    expect(text([first!])).toBe('100.5x0.4');
    expect(v.bestBid()).toBe(first);
    list = [order('a', 'BUY', '100.5', '0.4', { state: 'PARTIALLY_FILLED', cumQty: d('0.1') }), order('s', 'SELL', '100.8', '1')];
    expect(text([v.bestBid()!, v.bestAsk()!])).toBe('100.5x0.3 100.8x1');
    list = [];
    expect([v.bestBid(), v.bestAsk()]).toEqual([market().bestBid(), market().bestAsk()]);
  });

  it("ownOrdersOfRunner hands one strategy's list on as it is", () => {
    const list = [order('a', 'BUY', '100.2', '1')];
    const seen: unknown[] = [];
    const m = market();
    const runner = { names: ['s1', 's2'], book: (n: string) => ({ openCount: () => (n === 's1' ? 1 : 0), openOrders: () => list }) };
    const v = booksWithOwnOrders(() => m, ownOrdersOfRunner(() => runner))('BTC_USDT') as OwnOrdersBook;
    seen.push(v.own('BTC_USDT'), v.own('BTC_USDT'));
    expect(seen).toEqual([list, list]);
    expect(seen[0]).toBe(list);
  });
});
