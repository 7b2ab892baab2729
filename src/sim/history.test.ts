import { describe, expect, it } from 'vitest';
import { mulberry32 } from '../core/random.js';
import { account } from './fixtures.js';
import { bal, book, makeEngine, place } from './testkit.js';
import type { MatchingEngine } from './engine.js';
import type { PlaceResult } from './types.js';
import { History } from './state.js';

const ids = (e: MatchingEngine, acct: string): string[] => e.allOrders(acct, 'BTC_USDT', { limit: 1000 }).map((o) => o.orderId);

describe('bounded history (historyLimit)', () => {
  it('keeps open orders and the most recently ended ones; dropped orders are unknown to every lookup', () => {
    const e = makeEngine({ config: { historyLimit: 2 } });
    const open = place(e, 'a', 'BUY', { price: '10', quantity: '1', clientId: 'keep' });
    const x = [1, 2, 3, 4].map((i) => place(e, 'a', 'BUY', { price: '10', quantity: '1', clientId: `c${i}` }));
    for (const id of x) expect(e.cancelOrder({ accountId: 'a', orderId: id }, 2).ok).toBe(true);
    // The open order is older than every ended one and still stays; only the last 2 ended are kept.
    expect(ids(e, 'a')).toEqual([open, x[2], x[3]]);
    expect(e.allOrders('a', 'BTC_USDT', { which: 'history' }).map((o) => o.orderId)).toEqual([x[2], x[3]]);
    expect(e.getOrder('a', { orderId: x[0] })).toBeUndefined();
    expect(e.getOrder('a', { clientId: 'c2' })).toBeUndefined();
    expect(e.getOrder('a', { clientId: 'c3' })?.status).toBe('CANCELED');
    const r = e.cancelOrder({ accountId: 'a', orderId: x[1] }, 3);
    expect(r.ok ? 'ok' : r.reason).toBe('UNKNOWN_ORDER');
    expect(e.cancelOrder({ accountId: 'a', clientId: 'keep' }, 3).ok).toBe(true);
    // Canceling the old open order ends it last: it stays, and x[2] is the one dropped now.
    expect(ids(e, 'a')).toEqual([open, x[3]]);
  });

  it('keeps the most recent own trades', () => {
    const e = makeEngine({ config: { historyLimit: 2 } });
    for (let i = 0; i < 3; i++) place(e, 'a', 'SELL', { price: '100', quantity: '0.1' });
    place(e, 'b', 'BUY', { price: '100', quantity: '0.3' });
    // Seller a: three maker trades, buyer b: three taker trades; each keeps its last two.
    expect(e.accountTrades('a', 'BTC_USDT').map((t) => t.tradeId)).toEqual(['2', '3']);
    expect(e.accountTrades('b', 'BTC_USDT').map((t) => t.tradeId)).toEqual(['2', '3']);
  });

  it('historyLimit 0 keeps only open orders and no trades', () => {
    const e = makeEngine({ config: { historyLimit: 0 } });
    const rest = place(e, 'a', 'SELL', { price: '100', quantity: '1' });
    place(e, 'b', 'BUY', { price: '100', quantity: '0.5' });
    expect(ids(e, 'a')).toEqual([rest]);
    expect(ids(e, 'b')).toEqual([]);
    expect(e.accountTrades('a', 'BTC_USDT')).toEqual([]);
  });

  it('refuses a negative or fractional bound', () => {
    expect(() => makeEngine({ config: { historyLimit: -1 } })).toThrow(/historyLimit/);
    expect(() => makeEngine({ config: { historyLimit: 1.5 } })).toThrow(/historyLimit/);
  });

  it('changes no event, balance or book: only what history queries can still see', () => {
    // The same random flow through an unbounded engine and one with a tiny bound; all but the
    // queries must be identical, and the bounded engine's queries must be the tail of the full ones.
    const accts = [account('a', { USDT: '100000', BTC: '1000' }), account('b', { USDT: '100000', BTC: '1000' })];
    const full = makeEngine({ accounts: accts });
    const small = makeEngine({ accounts: accts, config: { historyLimit: 3 } });
    const r = mulberry32(7);
    const live: string[] = [];
    for (let i = 0; i < 3000; i++) {
      const who = r() < 0.5 ? 'a' : 'b';
      const x = r();
      if (x < 0.3 && live.length > 0) {
        const id = live.splice(Math.floor(r() * live.length), 1)[0]!;
        const owner = full.getOrder('a', { orderId: id }) ? 'a' : 'b';
        const p = full.cancelOrder({ accountId: owner, orderId: id }, i);
        const q = small.cancelOrder({ accountId: owner, orderId: id }, i);
        expect(q.ok).toBe(p.ok);
        continue;
      }
      const req = { accountId: who, symbol: 'BTC_USDT', side: r() < 0.5 ? ('BUY' as const) : ('SELL' as const), type: x < 0.9 ? ('LIMIT' as const) : ('MARKET' as const), quantity: (1 + Math.floor(r() * 50)) / 100 + '', ...(x < 0.9 ? { price: String(95 + Math.floor(r() * 10)) } : {}) };
      const p = full.placeOrder(req, i);
      const q = small.placeOrder(req, i);
      expect(q.ok ? q.orderId : q.reason).toBe(p.ok ? p.orderId : p.reason);
      if (p.ok && p.status !== 'FILLED' && p.status !== 'EXPIRED') live.push(p.orderId);
    }
    expect(small.takeEvents()).toEqual(full.takeEvents());
    expect(book(small)).toEqual(book(full));
    for (const a of ['a', 'b']) {
      expect(bal(small, a)).toEqual(bal(full, a));
      expect(small.openOrders(a)).toEqual(full.openOrders(a));
      const kept = small.allOrders(a, 'BTC_USDT', { limit: 1000 });
      const all = full.allOrders(a, 'BTC_USDT', { limit: 1000 });
      expect(kept.filter((o) => o.status !== 'NEW' && o.status !== 'PARTIALLY_FILLED')).toHaveLength(3);
      for (const o of kept) expect(all.find((x) => x.orderId === o.orderId)).toEqual(o);
      expect(small.accountTrades(a, 'BTC_USDT')).toEqual(full.accountTrades(a, 'BTC_USDT').slice(-3));
    }
  });
});

describe('id index and order columns under a history bound', () => {
  it.each([0, 5])('historyLimit %i: a long run keeps them bounded; dropped ids answer exactly as before, and an answer read after its order was dropped reads as before', (limit) => {
    // The same flow through an unbounded engine (keeps every slot) and a bounded one; orders are
    // canceled oldest first with a few resting, some market orders fill, so the oldest held
    // order keeps moving up and the dead prefix is dropped many times.
    const accts = [account('a', { USDT: '100000000', BTC: '100000' }), account('b', { USDT: '100000000', BTC: '100000' })];
    const full = makeEngine({ accounts: accts });
    const small = makeEngine({ accounts: accts, config: { historyLimit: limit } });
    const r = mulberry32(11);
    const live: { id: string; acct: string }[] = [];
    const early: { id: string; acct: string; answer: PlaceResult }[] = [];
    let maxIndex = 0;
    let maxCapacity = 0;
    const n = 12_000;
    for (let i = 0; i < n; i++) {
      if (live.length > 20 || (live.length > 0 && r() < 0.3)) {
        const { id, acct } = live.shift()!;
        const p = full.cancelOrder({ accountId: acct, orderId: id }, i);
        const q = small.cancelOrder({ accountId: acct, orderId: id }, i);
        expect(q.ok ? q.status : q.reason).toBe(p.ok ? p.status : p.reason);
        continue;
      }
      const acct = r() < 0.5 ? 'a' : 'b';
      const market = r() < 0.15;
      const req = { accountId: acct, symbol: 'BTC_USDT', side: r() < 0.5 ? ('BUY' as const) : ('SELL' as const), type: market ? ('MARKET' as const) : ('LIMIT' as const), quantity: (1 + Math.floor(r() * 50)) / 100 + '', ...(market ? {} : { price: String(95 + Math.floor(r() * 10)) }) };
      const p = full.placeOrder(req, i);
      const q = small.placeOrder(req, i);
      expect(q.ok ? q.orderId : q.reason).toBe(p.ok ? p.orderId : p.reason);
      if (!p.ok || !q.ok) continue;
      // Read at once: with historyLimit 0 a filled order is dropped (and its slot may be) within the call.
      if (i % 7 === 0) expect(q.order).toEqual(p.order);
      if (p.status === 'NEW' || p.status === 'PARTIALLY_FILLED') live.push({ id: p.orderId, acct });
      // Answers kept by a caller and read after their orders are long dropped.
      if (i < 2000) early.push({ id: p.orderId, acct, answer: q });
      const slots = small.orderSlots();
      maxIndex = Math.max(maxIndex, slots.index);
      maxCapacity = Math.max(maxCapacity, slots.capacity);
    }
    expect(small.takeEvents()).toEqual(full.takeEvents());
    expect(book(small)).toEqual(book(full));
    for (const a of ['a', 'b']) expect(bal(small, a)).toEqual(bal(full, a));

    const end = small.orderSlots();
    const issued = Number(full.orderSlots().index);
    expect(issued).toBeGreaterThan(6000);
    expect(full.orderSlots().first).toBe(1);
    // The bounded engine dropped most ids ever issued; what it spans stays small all along.
    expect(end.first).toBeGreaterThan(issued - 2048);
    expect(maxIndex).toBeLessThanOrEqual(2048);
    expect(maxCapacity).toBeLessThanOrEqual(2048);

    // Every id the bounded engine no longer holds is unknown to every lookup, with the same answer
    // as an id never issued; the ids it holds answer as the unbounded engine does.
    const never = issued + 1000;
    const cancelNever = small.cancelOrder({ accountId: 'a', orderId: never }, n);
    expect(cancelNever.ok ? 'ok' : cancelNever.reason).toBe('UNKNOWN_ORDER');
    let dropped = 0;
    for (let id = 1; id <= issued; id++) {
      const want = full.getOrder('a', { orderId: id }) ?? full.getOrder('b', { orderId: id });
      const acct = want?.accountId ?? 'a';
      const got = small.getOrder(acct, { orderId: id });
      if (got !== undefined) {
        expect(got).toEqual(want);
        continue;
      }
      dropped++;
      expect(small.getOrder(acct, { clientId: `sim-${id}` })).toBeUndefined();
      const c = small.cancelOrder({ accountId: acct, orderId: id }, n);
      expect(c.ok ? 'ok' : `${c.reason} ${c.message}`).toBe(`UNKNOWN_ORDER orderId ${id} is unknown`);
    }
    expect(dropped).toBeGreaterThan(issued - 100);
    expect(small.orderSlots().first).toBe(end.first);
    for (const x of early) expect(x.answer.ok && x.answer.order).toEqual(full.getOrder(x.acct, { orderId: x.id }));
    expect(early.some((x) => x.answer.ok && !x.answer.order.executedQuoteQty.isZero())).toBe(true);
  });
});

describe('History order ids', () => {
  it('keeps exactly the open and the most recently ended ids, in id order, when orders end in any order (with compaction)', () => {
    const r = mulberry32(7);
    const limit = 300;
    const h = new History(limit);
    const n = 5000;
    for (let id = 1; id <= n; id++) h.orders.push(id);
    // The reference: ids in the order they ended; the last `limit` stay, plus every id never ended.
    const endedOrder: number[] = [];
    const live = Array.from({ length: n }, (_, i) => i + 1);
    let evicted = 0;
    while (live.length > 200) {
      const j = Math.floor(r() * live.length);
      const id = live[j]!;
      live[j] = live[live.length - 1]!;
      live.pop();
      endedOrder.push(id);
      const out = h.orderEnded(id);
      if (endedOrder.length > limit) {
        expect(out).toBe(endedOrder[endedOrder.length - limit - 1]);
        evicted++;
      } else expect(out).toBe(-1);
    }
    const ended = new Set(endedOrder);
    const stillEnded = new Set(endedOrder.slice(-limit));
    const expected = Array.from({ length: n }, (_, i) => i + 1).filter((id) => !ended.has(id) || stillEnded.has(id));
    expect(h.keptOrders()).toEqual(expected);
    expect(evicted).toBe(endedOrder.length - limit);
  });
});
