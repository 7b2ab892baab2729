/**
 * Property tests: random sequences of every kind of operation (all order types, STP modes, OCO,
 * cancels, replayed depth and trades) must keep the engine's invariants after every step.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Decimal, ZERO } from '../core/decimal.js';
import type { MatchingEngine } from './engine.js';
import { account } from './fixtures.js';
import { makeEngine, testSymbol } from './testkit.js';
import type { SimOrder } from './types.js';

const ACCTS = ['a', 'b', 'c'] as const;
const price = fc.integer({ min: 9950, max: 10050 }).map((n) => (n / 100).toFixed(2));
const qty = fc.integer({ min: 1, max: 3000 }).map((n) => (n / 1000).toFixed(3));
const side = fc.constantFrom('BUY' as const, 'SELL' as const);
const acct = fc.constantFrom(...ACCTS);
const stp = fc.constantFrom('EXPIRE_TAKER' as const, 'EXPIRE_MAKER' as const, 'EXPIRE_BOTH' as const, 'DECREMENT' as const, 'TRANSFER' as const);

const op = fc.oneof(
  fc.record({ k: fc.constant('limit' as const), acct, side, price, qty, stp, tif: fc.constantFrom('GTC' as const, 'IOC' as const, 'FOK' as const, 'GTX' as const), ice: fc.boolean() }),
  fc.record({ k: fc.constant('market' as const), acct, side, qty, stp, quote: fc.boolean() }),
  fc.record({ k: fc.constant('stop' as const), acct, side, price, stop: price, qty, type: fc.constantFrom('STOP_LOSS' as const, 'STOP_LOSS_LIMIT' as const, 'TAKE_PROFIT' as const, 'TAKE_PROFIT_LIMIT' as const) }),
  fc.record({ k: fc.constant('oco' as const), acct, side, qty, a: price, b: price, c: price }),
  fc.record({ k: fc.constant('cancel' as const), acct, nth: fc.nat() }),
  fc.record({ k: fc.constant('diff' as const), bid: price, ask: price, bq: qty, aq: qty }),
  fc.record({ k: fc.constant('trade' as const), price, qty, m: fc.boolean() }),
);
type Op = typeof op extends fc.Arbitrary<infer T> ? T : never;

function apply(e: MatchingEngine, o: Op, now: number): void {
  const base = { symbol: 'BTC_USDT' };
  switch (o.k) {
    case 'limit':
      e.placeOrder({ ...base, accountId: o.acct, side: o.side, type: 'LIMIT', price: o.price, quantity: o.qty, timeInForce: o.tif, stpMode: o.stp, ...(o.ice && o.tif === 'GTC' && Number(o.qty) >= 0.004 ? { icebergQty: (Math.floor((Number(o.qty) * 1000) / 3) / 1000).toFixed(3) } : {}) }, now);
      return;
    case 'market':
      e.placeOrder({ ...base, accountId: o.acct, side: o.side, type: 'MARKET', stpMode: o.stp, ...(o.quote && o.side === 'BUY' ? { quoteOrderQty: (Number(o.qty) * 100).toFixed(2) } : { quantity: o.qty }) }, now);
      return;
    case 'stop':
      e.placeOrder({ ...base, accountId: o.acct, side: o.side, type: o.type, stopPrice: o.stop, quantity: o.qty, ...(o.type.endsWith('_LIMIT') ? { price: o.price } : {}) }, now);
      return;
    case 'oco': {
      const [lo, mid, hi] = [o.a, o.b, o.c].sort((x, y) => Number(x) - Number(y)) as [string, string, string];
      const buy = o.side === 'BUY';
      e.placeOco({ ...base, accountId: o.acct, side: o.side, quantity: o.qty, price: buy ? lo : hi, stopPrice: buy ? hi : lo, stopLimitPrice: buy ? hi : lo }, now);
      void mid;
      return;
    }
    case 'cancel': {
      const open = e.openOrders(o.acct);
      if (open.length > 0) e.cancelOrder({ accountId: o.acct, orderId: open[o.nth % open.length]!.orderId }, now);
      return;
    }
    case 'diff':
      // Replayed books never cross themselves; a crossing own order is what the engine must resolve.
      if (Number(o.bid) < Number(o.ask)) e.applyDepthDiff('BTC_USDT', { bids: [{ price: new Decimal(o.bid), qty: new Decimal(o.bq) }], asks: [{ price: new Decimal(o.ask), qty: new Decimal(o.aq) }] }, now);
      return;
    case 'trade':
      e.applyTrade('BTC_USDT', { price: new Decimal(o.price), qty: new Decimal(o.qty), isBuyerMaker: o.m }, now);
      return;
    default: {
      const never: never = o;
      throw new Error(String(never));
    }
  }
}

const rem = (o: SimOrder): Decimal => o.origQty.minus(o.executedQty).minus(o.preventedQty);

/** What the open orders of an account must hold locked, per asset. */
function expectedLocks(e: MatchingEngine, accountId: string): { BTC: Decimal; USDT: Decimal } {
  let btc = ZERO;
  let usdt = ZERO;
  const seenLists = new Set<number>();
  const open = e.openOrders(accountId);
  for (const o of open) {
    if (o.orderListId >= 0) {
      if (seenLists.has(o.orderListId)) continue;
      seenLists.add(o.orderListId);
      const legs = open.filter((x) => x.orderListId === o.orderListId);
      if (legs.length === 2) {
        // One lock for both legs: the base quantity, or the larger leg price times it.
        if (o.side === 'SELL') btc = btc.plus(rem(o));
        else usdt = usdt.plus(Decimal.max(legs[0]!.price, legs[1]!.price).mul(rem(o)));
        continue;
      }
    }
    if (o.side === 'SELL') btc = btc.plus(rem(o));
    else if (o.type === 'STOP_LOSS' || o.type === 'TAKE_PROFIT') usdt = usdt.plus(o.stopPrice.mul(o.origQty));
    else usdt = usdt.plus(o.price.mul(rem(o)));
  }
  return { BTC: btc, USDT: usdt };
}

function checkInvariants(e: MatchingEngine, step: string): void {
  const d = e.depth('BTC_USDT', 10_000);
  const bid = d.bids[0]?.price;
  const ask = d.asks[0]?.price;
  if (bid !== undefined && ask !== undefined) expect(bid.lt(ask), `book crossed after ${step}: ${bid.toFixed()} >= ${ask.toFixed()}`).toBe(true);
  for (const l of [...d.bids, ...d.asks]) expect(l.qty.gt(0), `empty level shown after ${step}`).toBe(true);
  for (const a of ACCTS) {
    const bals = Object.fromEntries(e.balances(a).map((b) => [b.asset, b]));
    for (const b of Object.values(bals)) expect(b.free.gte(0) && b.locked.gte(0), `negative balance ${a} ${b.asset} after ${step}`).toBe(true);
    const want = expectedLocks(e, a);
    expect(bals.BTC!.locked.toFixed(), `locked BTC of ${a} after ${step}`).toBe(want.BTC.toFixed());
    expect(bals.USDT!.locked.toFixed(), `locked USDT of ${a} after ${step}`).toBe(want.USDT.toFixed());
    for (const o of e.allOrders(a, 'BTC_USDT', { limit: 1000 })) {
      expect(o.executedQty.plus(o.preventedQty).lte(o.origQty), `order ${o.orderId} overfilled after ${step}`).toBe(true);
    }
  }
}

describe('engine invariants under random operation sequences', () => {
  it('never crossed, never negative, locked equals open orders, never overfilled', () => {
    fc.assert(
      fc.property(fc.array(op, { minLength: 1, maxLength: 50 }), (ops) => {
        const e = makeEngine({
          symbol: { info: testSymbol([{ filterType: 'NOTIONAL', minNotional: '1', maxNotional: '0', applyToMarket: false, avgPriceMins: 0 }]), lastPrice: new Decimal('100') },
          // One trade group, so TRANSFER orders between accounts are prevented too.
          accounts: ACCTS.map((id) => account(id, { USDT: '1000', BTC: '10' }, { group: 'g' })),
          config: { bufferEvents: false },
        });
        ops.forEach((o, i) => {
          apply(e, o, i);
          checkInvariants(e, `op ${i} ${JSON.stringify(o)}`);
        });
      }),
      { numRuns: 300, seed: 20261121 },
    );
  });
});
