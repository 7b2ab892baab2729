import { describe, expect, it } from 'vitest';
import type { BusEvent } from '../bus/events.js';
import type { PlaceIntent } from '../bus/intents.js';
import { Decimal } from '../core/decimal.js';
import { MatchingEngine } from '../sim/engine.js';
import { symbolInfoOf } from '../backtest/Backtest.js';
import { VirtualScheduler } from './Scheduler.js';
import { ShownOwnOrders } from './ShownOwnOrders.js';
import { SimVenue } from './SimVenue.js';

const d = (s: string) => new Decimal(s);
const SYM = 'BTC_USDT';
const FILTERS = [
  { filterType: 'PRICE_FILTER', minPrice: '0.01', maxPrice: '1000000', tickSize: '0.01' },
  { filterType: 'LOT_SIZE', minQty: '0.001', maxQty: '1000', stepSize: '0.001' },
];

/** A venue over an engine with a book of 99 / 101, reports after 3 ms, resting fills 100 ms later. */
function setup(emit: 'orderEvents' | 'userData' = 'orderEvents') {
  const engine = new MatchingEngine({
    symbols: [{ info: symbolInfoOf(SYM, FILTERS) }, { info: symbolInfoOf('ETH_USDT', FILTERS) }],
    accounts: [{ id: 'bt', makerCommission: d('0'), takerCommission: d('0'), balances: { USDT: d('100000'), BTC: d('10'), ETH: d('10') } }],
    bufferEvents: false,
  });
  const s = new VirtualScheduler();
  const shown = new ShownOwnOrders(s);
  const events: { at: number; e: BusEvent }[] = [];
  const venue = new SimVenue({ engine, accountId: 'bt', scheduler: s, publish: (e) => events.push({ at: s.clock.now(), e }), latency: { entryMs: 10, cancelMs: 10, ackMs: 3, streamHoldMs: 100 }, emit, shown });
  engine.applyDepthSnapshot(SYM, { bids: [{ price: d('99'), qty: d('1') }], asks: [{ price: d('101'), qty: d('1') }] }, 0);
  return { engine, s, shown, events, venue };
}

const place = (clientId: string, over: Partial<PlaceIntent> = {}): PlaceIntent => ({ kind: 'place', strategy: 'st', intentId: `i-${clientId}`, clientId, symbol: SYM, side: 'BUY', orderType: 'LIMIT', timeInForce: 'GTC', quantity: d('0.5'), price: d('100'), ...over });
const text = (shown: ShownOwnOrders, symbol = SYM) => shown.orders(symbol).map((o) => `${o.clientId} ${o.side} ${o.quantity?.minus(o.cumQty).toFixed()}@${o.price?.toFixed()} ${o.state}`);

describe('ShownOwnOrders: own orders as the depth stream shows them', () => {
  it('a booked order shows with the next depth diff, not with its acknowledgement', () => {
    const { s, shown, events, venue } = setup();
    venue.submit(place('a'));
    s.runUntil(10); // reached the engine at 10
    expect(text(shown)).toEqual([]);
    s.runUntil(13);
    expect(events.some((x) => x.e.type === 'orderUpdate' && x.e.state === 'NEW')).toBe(true);
    expect(text(shown)).toEqual([]); // acknowledged, but no diff has carried it yet
    shown.flush('ETH_USDT');
    expect(text(shown)).toEqual([]); // another symbol's diff carries nothing of this one
    shown.flush(SYM);
    expect(text(shown)).toEqual(['a BUY 0.5@100 NEW']);
  });

  it('without a diff, the 100 ms tick of the run clock shows the change', () => {
    const { s, shown, venue } = setup();
    venue.submit(place('a'));
    s.runUntil(99.9);
    expect(text(shown)).toEqual([]);
    s.runUntil(100);
    expect(text(shown)).toEqual(['a BUY 0.5@100 NEW']);
  });

  it('a resting order a replayed trade fills leaves the book before its fill report reaches the strategy', () => {
    const { engine, s, shown, events, venue } = setup();
    venue.submit(place('a'));
    s.runUntil(20);
    shown.flush(SYM);
    s.runUntil(150);
    // A seller sweeps through 100: ours fills (the replayed bids at 99 stay behind it).
    engine.applyTrade(SYM, { price: d('99.5'), qty: d('2'), isBuyerMaker: true }, 150);
    const reported = (): boolean => events.some((x) => x.e.type === 'fill');
    expect(text(shown)).toEqual(['a BUY 0.5@100 NEW']);
    shown.flush(SYM); // the diff after the sweep
    expect(text(shown)).toEqual([]);
    expect(reported()).toBe(false); // the report is still held: 3 + 100 ms after the fill
    s.runUntil(253);
    expect(reported()).toBe(true);
  });

  it('the tick always passes before a held fill report arrives', () => {
    const { engine, s, shown, events, venue } = setup('userData');
    venue.submit(place('a'));
    s.runUntil(120);
    expect(text(shown)).toEqual(['a BUY 0.5@100 NEW']);
    s.runUntil(199);
    engine.applyTrade(SYM, { price: d('99.5'), qty: d('2'), isBuyerMaker: true }, 199);
    s.runUntil(200);
    expect(text(shown)).toEqual([]);
    expect(events.some((x) => x.e.type === 'executionReport' && x.e.executionType === 'TRADE')).toBe(false);
  });

  it('a partial fill shows the rest; a cancel takes it off; stop and market orders never show', () => {
    const { engine, s, shown, venue } = setup();
    venue.submit(place('a', { quantity: d('1') }));
    venue.submit(place('m', { orderType: 'MARKET', timeInForce: undefined, price: undefined, quantity: d('0.1') }));
    venue.submit(place('st', { side: 'SELL', orderType: 'STOP_LOSS_LIMIT', price: d('90'), stopPrice: d('91'), quantity: d('0.1') }));
    s.runUntil(100);
    expect(text(shown)).toEqual(['a BUY 1@100 NEW']);
    engine.applyTrade(SYM, { price: d('100'), qty: d('0.3'), isBuyerMaker: true }, 100);
    s.runUntil(200);
    expect(text(shown)).toEqual(['a BUY 0.7@100 PARTIALLY_FILLED']);
    venue.submit({ kind: 'cancel', strategy: 'st', intentId: 'c', symbol: SYM, clientId: 'a' });
    s.runUntil(300);
    expect(text(shown)).toEqual([]);
  });

  it('hands out the same list until a change is shown', () => {
    const { s, shown, venue } = setup();
    venue.submit(place('a'));
    venue.submit(place('b', { side: 'SELL', price: d('102') }));
    s.runUntil(100);
    const list = shown.orders(SYM);
    expect(list.map((o) => o.clientId)).toEqual(['a', 'b']);
    expect(Object.isFrozen(list)).toBe(true);
    shown.flush(SYM);
    expect(shown.orders(SYM)).toBe(list);
    venue.submit({ kind: 'cancel', strategy: 'st', intentId: 'c', symbol: SYM, clientId: 'b' });
    s.runUntil(120);
    expect(shown.orders(SYM)).toBe(list); // cancelled at 110, not shown yet
    shown.flush(SYM);
    expect(shown.orders(SYM).map((o) => o.clientId)).toEqual(['a']);
  });
});
