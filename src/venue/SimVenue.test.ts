import { describe, expect, it } from 'vitest';
import type { BusEvent } from '../bus/events.js';
import type { PlaceIntent } from '../bus/intents.js';
import { Decimal } from '../core/decimal.js';
import { ALGO_ORDER_TYPES } from '../core/enums.js';
import { MatchingEngine } from '../sim/engine.js';
import type { ScaledEngineListener, ScaledSubscribeOptions } from '../sim/events.js';
import { symbolInfoOf } from '../backtest/Backtest.js';
import { VirtualScheduler } from './Scheduler.js';
import { type LatencyConfig, SimVenue } from './SimVenue.js';

const d = (s: string) => new Decimal(s);
const FILTERS = [
  { filterType: 'PRICE_FILTER', minPrice: '0.01', maxPrice: '1000000', tickSize: '0.01' },
  { filterType: 'LOT_SIZE', minQty: '0.001', maxQty: '1000', stepSize: '0.001' },
];

function setup(latency: LatencyConfig = { entryMs: 10, cancelMs: 7, ackMs: 3 }, emit: 'orderEvents' | 'userData' = 'orderEvents') {
  const engine = new MatchingEngine({
    symbols: [{ info: symbolInfoOf('BTC_USDT', FILTERS) }],
    accounts: [{ id: 'bt', makerCommission: d('0.001'), takerCommission: d('0.002'), balances: { USDT: d('100000'), BTC: d('10') } }],
    bufferEvents: false,
  });
  const s = new VirtualScheduler();
  const events: { at: number; e: BusEvent }[] = [];
  const venue = new SimVenue({ engine, accountId: 'bt', scheduler: s, publish: (e) => events.push({ at: s.clock.now(), e }), latency, emit });
  engine.applyDepthSnapshot('BTC_USDT', { bids: [{ price: d('99'), qty: d('1') }], asks: [{ price: d('101'), qty: d('0.5') }, { price: d('102'), qty: d('2') }] }, 0);
  return { engine, s, events, venue };
}

const place = (clientId: string, over: Partial<PlaceIntent> = {}): PlaceIntent => ({ kind: 'place', strategy: 'st', intentId: `i-${clientId}`, clientId, symbol: 'BTC_USDT', side: 'BUY', orderType: 'LIMIT', timeInForce: 'GTC', quantity: d('1'), price: d('100'), ...over });
const show = (x: { at: number; e: BusEvent }) => (x.e.type === 'orderUpdate' ? `${x.at} ${x.e.clientId} ${x.e.state} ${x.e.cumQty}` : x.e.type === 'fill' ? `${x.at} fill ${x.e.clientId} ${x.e.qty}@${x.e.price} fee ${x.e.commission} ${x.e.isMaker ? 'maker' : 'taker'}` : `${x.at} ${x.e.type}`);

describe('SimVenue', () => {
  it('applies entry and acknowledgement latency on the virtual clock', () => {
    const { s, events, venue } = setup();
    venue.submit(place('a'));
    expect(events).toEqual([]); // never synchronously
    s.runUntil(0);
    expect(events.map(show)).toEqual(['0 a PENDING 0']);
    s.runUntil(12);
    expect(events.map(show)).toEqual(['0 a PENDING 0']); // reached the engine at 10, ack due at 13
    s.runUntil(13);
    expect(events.map(show)).toEqual(['0 a PENDING 0', '13 a NEW 0']);
  });

  it('a market order walks the book (partial levels, taker fee)', () => {
    const { s, events, venue } = setup({ entryMs: 0, cancelMs: 0, ackMs: 0 });
    venue.submit(place('m', { orderType: 'MARKET', timeInForce: undefined, price: undefined, quantity: d('1.5') }));
    s.runUntil(0);
    // A buyer pays commission in the base asset: 0.2 % of 0.5 and of 1 BTC.
    expect(events.map(show)).toEqual(['0 m PENDING 0', '0 m NEW 0', '0 fill m 0.5@101 fee 0.001 taker', '0 m PARTIALLY_FILLED 0.5', '0 fill m 1@102 fee 0.002 taker', '0 m FILLED 1.5']);
  });

  it('a quoteOrderQty buy takes the quantity whose notional is closest, rounding up when that is closer (spec rule 4)', () => {
    const { s, events, venue } = setup({ entryMs: 0, cancelMs: 0, ackMs: 0 });
    // 1.5 costs 152.5 (0.08 below 152.58), 1.501 costs 152.602 (0.022 above).
    venue.submit(place('q', { orderType: 'MARKET', timeInForce: undefined, price: undefined, quantity: undefined, quoteOrderQty: d('152.58') }));
    s.runUntil(0);
    expect(events.map(show)).toEqual(['0 q PENDING 0', '0 q NEW 0', '0 fill q 0.5@101 fee 0.001 taker', '0 q PARTIALLY_FILLED 0.5', '0 fill q 1.001@102 fee 0.002002 taker', '0 q FILLED 1.501']);
    const last = events.at(-1)!.e;
    expect(last.type === 'orderUpdate' && last.cumQuoteQty.toFixed()).toBe('152.602');
  });

  it('a passive order is filled by replayed trades only after the queue ahead of it, as maker', () => {
    const { engine, s, events, venue } = setup({ entryMs: 0, cancelMs: 0, ackMs: 0 });
    venue.submit(place('p', { price: d('99'), quantity: d('0.4') }));
    s.runUntil(0);
    // 1 BTC of replayed bids was at 99 before us: a 1.2 sell trade fills 0.2 of ours.
    // The replay moves the clock to the event's time before the engine sees the event.
    s.runUntil(5);
    engine.applyTrade('BTC_USDT', { price: d('99'), qty: d('1.2'), isBuyerMaker: true }, 5);
    s.runUntil(5);
    expect(events.map(show).slice(2)).toEqual(['5 fill p 0.2@99 fee 0.0002 maker', '5 p PARTIALLY_FILLED 0.2']);
  });

  it('cancel latency: a fill can still happen while the cancel travels; the late cancel is not refused, an unknown one is', () => {
    const { engine, s, events, venue } = setup({ entryMs: 0, cancelMs: 50, ackMs: 0 });
    venue.submit(place('c', { price: d('99'), quantity: d('0.1') }));
    s.runUntil(0);
    venue.submit({ kind: 'cancel', strategy: 'st', intentId: 'x', symbol: 'BTC_USDT', clientId: 'c' });
    s.runUntil(20);
    engine.applyTrade('BTC_USDT', { price: d('98'), qty: d('5'), isBuyerMaker: true }, 20);
    s.runUntil(100);
    // Live, the exchange refuses the late cancel and the router looks the order up: the strategy
    // hears only that it FILLED. A cancel of a clientId never placed is refused.
    expect(events.map(show).slice(2)).toEqual(['20 fill c 0.1@99 fee 0.0001 maker', '20 c FILLED 0.1']);
    venue.submit({ kind: 'cancel', strategy: 'st', intentId: 'y', symbol: 'BTC_USDT', clientId: 'never' });
    s.runUntil(200);
    const last = events[events.length - 1]?.e;
    expect(last?.type === 'intentRejected' ? `${last.reason} ${last.message}` : last?.type).toBe('UNKNOWN_ORDER no order with clientId never for st');
  });

  it('engine rejections (filters) become REJECTED updates with the reason; duplicates are refused', () => {
    const { s, events, venue } = setup({ entryMs: 0, cancelMs: 0, ackMs: 0 });
    venue.submit(place('r', { price: d('100.001') }));
    venue.submit(place('r'));
    s.runUntil(0);
    expect(events.map(show)).toEqual(['0 r PENDING 0', '0 intentRejected', '0 r REJECTED 0']);
    const rej = events[2]?.e;
    expect(rej?.type === 'orderUpdate' && rej.reason).toMatch(/^PRICE_FILTER/);
  });

  it('cancelAll cancels only that strategy’s orders; userData mode emits executionReports', () => {
    const { s, events, venue } = setup({ entryMs: 0, cancelMs: 0, ackMs: 1 }, 'userData');
    venue.submit(place('u1', { price: d('98') }));
    venue.submit(place('u2', { price: d('97'), strategy: 'other' }));
    s.runUntil(5);
    venue.submit({ kind: 'cancelAll', strategy: 'st', intentId: 'ca' });
    s.runUntil(10);
    const ers = events.filter((x) => x.e.type === 'executionReport').map((x) => (x.e.type === 'executionReport' ? `${x.at} ${x.e.clientId || x.e.origClientId} ${x.e.executionType}` : ''));
    expect(ers).toEqual(['1 u1 NEW', '1 u2 NEW', '6 u1 CANCELED']);
    expect(venue.openOrders().map((o) => o.intent.clientId)).toEqual(['u2']);
    expect(venue.liveOrderRecords().map((o) => o.clientId)).toEqual(['u2']);
  });

  it('listens to the engine only while it has orders, and again for the next one (orderEvents mode)', () => {
    const { engine, s, events } = setup({ entryMs: 0, cancelMs: 5, ackMs: 1 });
    // A second venue on the same engine, counting its own subscriptions.
    let listening = 0;
    const subscribe = engine.subscribe.bind(engine);
    // SimVenue subscribes for scaled reports: the wrapper passes its options on.
    engine.subscribe = ((l: ScaledEngineListener, o: ScaledSubscribeOptions) => {
      listening++;
      const stop = subscribe(l, o);
      return () => {
        listening--;
        stop();
      };
    }) as typeof engine.subscribe;
    const own: string[] = [];
    const venue = new SimVenue({ engine, accountId: 'bt', scheduler: s, publish: (e) => own.push(show({ at: s.clock.now(), e })), latency: { entryMs: 0, cancelMs: 5, ackMs: 1 } });
    expect(listening).toBe(0);
    venue.submit(place('m', { orderType: 'MARKET', timeInForce: undefined, price: undefined, quantity: d('0.2') }));
    expect(listening).toBe(1);
    s.runUntil(0);
    // Filled at 0: the engine's reports are taken (delivered at ackMs), nothing is left to hear.
    expect(listening).toBe(0);
    venue.submit(place('p', { price: d('99'), quantity: d('0.1') }));
    s.runUntil(2);
    engine.applyTrade('BTC_USDT', { price: d('99'), qty: d('1.05'), isBuyerMaker: true }, 2);
    venue.submit({ kind: 'cancel', strategy: 'st', intentId: 'x', symbol: 'BTC_USDT', clientId: 'p' });
    s.runUntil(20);
    expect(listening).toBe(0);
    expect(own).toEqual(['0 m PENDING 0', '0 p PENDING 0', '1 m NEW 0', '1 fill m 0.2@101 fee 0.0004 taker', '1 m FILLED 0.2', '1 p NEW 0', '3 fill p 0.05@99 fee 0.00005 maker', '3 p PARTIALLY_FILLED 0.05', '8 p CANCELED 0.05']);
    expect(events).toEqual([]);
  });

  it('keeps the open-order counts equal to the counts over liveIntents as orders are placed, rejected, filled and canceled', () => {
    for (const emit of ['orderEvents', 'userData'] as const) {
      const { engine, s, venue } = setup({ entryMs: 2, cancelMs: 3, ackMs: 1 }, emit);
      const walk = (symbol: string | undefined) => {
        const c = { total: 0, algo: 0, iceberg: 0 };
        for (const i of venue.liveIntents()) {
          if (symbol !== undefined && i.symbol !== symbol) continue;
          c.total++;
          if (ALGO_ORDER_TYPES.has(i.orderType)) c.algo++;
          if (i.icebergQty?.gt(0)) c.iceberg++;
        }
        return c;
      };
      const same = () => {
        for (const sym of ['BTC_USDT', 'ETH_USDT', undefined]) expect({ ...venue.openOrderCounts(sym) }).toEqual(walk(sym));
      };
      const intents: PlaceIntent[] = [
        place('a', { price: d('98'), quantity: d('0.5') }),
        place('b', { price: d('97'), icebergQty: d('0.1') }),
        place('c', { orderType: 'STOP_LOSS_LIMIT', price: d('95'), stopPrice: d('96') }),
        place('d', { price: d('100.001') }), // rejected by PRICE_FILTER
        place('e', { side: 'SELL', price: d('99'), quantity: d('0.2') }), // crosses: filled
        place('f', { price: d('96'), strategy: 'other' }),
      ];
      let seen = 0;
      for (const [k, i] of intents.entries()) {
        venue.submit(i);
        same();
        s.runUntil(k * 2 + 1);
        same();
        const all = venue.openOrderCounts(undefined);
        seen = Math.max(seen, all.total * 100 + all.algo * 10 + all.iceberg);
      }
      venue.submit({ kind: 'cancel', strategy: 'st', intentId: 'x', symbol: 'BTC_USDT', clientId: 'b' });
      s.runUntil(30);
      same();
      engine.applyTrade('BTC_USDT', { price: d('97'), qty: d('5'), isBuyerMaker: true }, 30);
      s.runUntil(40);
      same();
      venue.submit({ kind: 'cancelAll', strategy: 'st', intentId: 'ca' });
      s.runUntil(60);
      same();
      expect(seen).toBe(411); // at most 4 open orders, one algo, one iceberg: every count was exercised
      expect(venue.openOrderCounts('BTC_USDT').total).toBe(walk('BTC_USDT').total);
    }
  });

  it('a resting order’s fills come over the user stream, held streamHoldMs longer than answers to requests', () => {
    const { engine, s, events, venue } = setup({ entryMs: 0, cancelMs: 5, ackMs: 2, streamHoldMs: 100 });
    venue.submit(place('p', { price: d('99'), quantity: d('0.4') })); // rests behind 1 BTC of replayed bids
    venue.submit(place('t', { side: 'SELL', price: d('99'), quantity: d('0.1') })); // takes at once: its fill answers the request
    s.runUntil(10);
    engine.applyTrade('BTC_USDT', { price: d('99'), qty: d('1.1'), isBuyerMaker: true }, 10); // t took 0.1 of the 1 ahead: 0.2 fills p
    s.runUntil(20);
    venue.submit({ kind: 'cancel', strategy: 'st', intentId: 'x', symbol: 'BTC_USDT', clientId: 'p' });
    s.runUntil(200);
    // The cancel's answer (25 + 2) shows p's fill of 10 in cumQty before the fill's report (10 + 2 +
    // 100) comes: it waits for it, as a live tracker holds it until the fill is recorded. The
    // strategy hears the fill, then the close; p counts as open until then.
    expect(events.map(show)).toEqual(['0 p PENDING 0', '0 t PENDING 0', '2 p NEW 0', '2 t NEW 0', '2 fill t 0.1@99 fee 0.0198 taker', '2 t FILLED 0.1', '112 fill p 0.2@99 fee 0.0002 maker', '112 p PARTIALLY_FILLED 0.2', '112 p CANCELED 0.2']);
  });

  it('with a stream hold, a fill that finishes an order reaches the strategy after the hold, and its acknowledgement before (userData mode too)', () => {
    for (const emit of ['orderEvents', 'userData'] as const) {
      const { engine, s, events, venue } = setup({ entryMs: 0, cancelMs: 0, ackMs: 1, streamHoldMs: 100 }, emit);
      venue.submit(place('p', { price: d('99'), quantity: d('0.1') }));
      s.runUntil(5);
      engine.applyTrade('BTC_USDT', { price: d('98'), qty: d('5'), isBuyerMaker: true }, 5); // traded through: p fills
      s.runUntil(200);
      const seen = events.map((x) => (x.e.type === 'executionReport' ? `${x.at} ${x.e.clientId} ${x.e.executionType} ${x.e.status}` : show(x))).filter((x) => !x.includes('PENDING') && !x.includes('accountPosition'));
      expect(seen, emit).toEqual(emit === 'orderEvents' ? ['1 p NEW 0', '106 fill p 0.1@99 fee 0.0001 maker', '106 p FILLED 0.1'] : ['1 p NEW NEW', '106 p TRADE FILLED']);
    }
  });

  it('refuses negative latencies', () => {
    expect(() => setup({ entryMs: -1, cancelMs: 0, ackMs: 0 })).toThrow(/latency.entryMs/);
  });
});

describe('SimVenue with drawn latencies', () => {
  /** A model whose draws come from fixed lists (one per latency), to force a draw that would overtake. */
  const scripted = (entry: number[], cancel: number[], ack: number[]) => ({ entry: () => entry.shift() ?? 0, cancel: () => cancel.shift() ?? 0, ack: () => ack.shift() ?? 0 });

  it('requests reach the engine in the order they were sent, reports the bus in the order the engine made them', () => {
    const engine = new MatchingEngine({ symbols: [{ info: symbolInfoOf('BTC_USDT', FILTERS) }], accounts: [{ id: 'bt', makerCommission: d('0'), takerCommission: d('0'), balances: { USDT: d('100000'), BTC: d('10') } }], bufferEvents: false });
    engine.applyDepthSnapshot('BTC_USDT', { bids: [{ price: d('99'), qty: d('1') }], asks: [{ price: d('101'), qty: d('0.5') }] }, 0);
    const s = new VirtualScheduler();
    const events: { at: number; e: BusEvent }[] = [];
    // Entry of a: 30 ms; of b: 5 ms; the cancel of a: 1 ms. Reports: a's ack 20 ms, b's 2 ms.
    const venue = new SimVenue({ engine, accountId: 'bt', scheduler: s, publish: (e) => events.push({ at: s.clock.now(), e }), latency: scripted([30, 5], [1], [20, 2, 0, 0]) });
    venue.submit(place('a'));
    venue.submit(place('b', { price: d('98') }));
    venue.submit({ kind: 'cancel', strategy: 'st', intentId: 'c', symbol: 'BTC_USDT', clientId: 'a' });
    s.drain();
    const seen = events.map(show).filter((x) => !x.includes('PENDING'));
    // b and the cancel wait behind a (all at 30); b's report waits behind a's (at 50); the cancel found a resting.
    expect(seen).toEqual(['50 a NEW 0', '50 b NEW 0', '50 a CANCELED 0']);
  });
});
