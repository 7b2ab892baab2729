import { describe, expect, it, vi } from 'vitest';
import { Bus } from '../bus/Bus.js';
import type { BusEvent } from '../bus/events.js';
import type { Intent, PlaceIntent } from '../bus/intents.js';
import { VirtualClock } from '../core/clock.js';
import { Decimal } from '../core/decimal.js';
import { Ledger } from '../store/Ledger.js';
import { silentLogger } from './log.js';
import type { IntentDecision } from '../bus/decision.js';
import { createPipeline } from './pipeline.js';
import { setup as routerSetup } from './routerTestSetup.js';

const place = (clientId: string, qty = '1'): PlaceIntent => ({
  kind: 'place',
  strategy: 's',
  intentId: `i-${clientId}-${qty}`,
  clientId,
  symbol: 'BTC_IDR',
  side: 'BUY',
  orderType: 'LIMIT',
  price: new Decimal('100'),
  quantity: new Decimal(qty),
});

function setup() {
  const bus = new Bus();
  const ledger = Ledger.open(':memory:');
  const clock = new VirtualClock(1);
  const sent: Intent[] = [];
  const events: BusEvent[] = [];
  bus.events$.subscribe((e) => events.push(e));
  let release: () => void = () => undefined;
  const router = {
    reports: 0,
    reconciles: 0,
    onExecutionReport() {
      this.reports++;
    },
    reconcile() {
      this.reconciles++;
      return new Promise<void>((r) => (release = r));
    },
  };
  const risk = (i: Intent): IntentDecision =>
    i.kind === 'place' && i.quantity?.gt(5) ? { kind: 'reject', reason: 'LOT_SIZE', message: 'quantity too large' } : { kind: 'accept' };
  const p = createPipeline<unknown>({ bus, venue: { name: 'v', submit: (i) => sent.push(i) }, risk, clock, log: silentLogger, ledger, reconciler: router });
  p.start();
  return { bus, ledger, p, sent, events, router, release: () => release() };
}

/** A pipeline over a venue that ignores intents and a router that only reconciles (with `reconcile`). */
function reconcilingPipeline(bus: Bus, reconcile: () => Promise<void>, extra: { onReconciled?: () => void; reconcileRetryMs?: number } = {}) {
  const p = createPipeline<unknown>({
    bus,
    venue: { name: 'v', submit: () => undefined },
    risk: () => ({ kind: 'accept' }),
    clock: new VirtualClock(1),
    log: silentLogger,
    reconciler: { onExecutionReport: () => undefined, reconcile },
    ...extra,
  });
  p.start();
  return p;
}

describe('createPipeline', () => {
  it('journals every intent and decision, and refuses reused or malformed clientIds', () => {
    const { p, ledger } = setup();
    expect(p.gate(place('a'), {}).kind).toBe('accept');
    ledger.insertOrder({ ...place('a'), price: new Decimal('100'), quantity: new Decimal(1), timeInForce: undefined, quoteOrderQty: undefined, stopPrice: undefined, icebergQty: undefined, stpMode: undefined, venue: 'open', orderId: undefined, state: 'PENDING', cumQty: new Decimal(0), cumQuoteQty: new Decimal(0), createdAt: 1, sentAt: undefined, updatedAt: 1, reason: undefined }, 'test');
    const dup = p.gate(place('a', '2'), {});
    expect(dup.kind === 'reject' && dup.reason).toBe('DUPLICATE_CLIENT_ID');
    const bad = p.gate(place('has space'), {});
    expect(bad.kind === 'reject' && bad.reason).toBe('INVALID_CLIENT_ID');
    const big = p.gate(place('b', '9'), {});
    expect(big.kind === 'reject' && big.reason).toBe('LOT_SIZE');
    expect(ledger.count('intents')).toBe(4);
    expect(ledger.count('risk_decisions')).toBe(4);
    expect(p.stats).toEqual({ intents: 4, accepted: 1, adjusted: 0, rejected: 3 });
  });

  it('over the router, journals the order let through in the commit of its intent and verdict; the send adds none', async () => {
    const s = routerSetup();
    const p = createPipeline<unknown>({ bus: new Bus(), venue: s.router, risk: () => ({ kind: 'accept' }), clock: s.clock, log: silentLogger, ledger: s.ledger, reconciler: s.router });
    const inserts = vi.spyOn(s.ledger, 'insertOrder');
    const reads = vi.spyOn(s.ledger, 'order');
    const intent = place('a');
    expect(p.gate(intent, {})).toEqual({ kind: 'accept' });
    expect(s.ledger.transitions('a').map((t) => [t.from, t.to, t.source])).toEqual([[null, 'PENDING', 'intent']]);
    s.router.submit(intent);
    await s.router.idle();
    // Neither a second insert nor a lookup of the clientId on the way (the order's key checks it).
    expect([inserts.mock.calls.length, reads.mock.calls.length]).toEqual([0, 0]);
    expect(s.ex.requests.newOrder).toBe(1);
    expect([s.ledger.order('a')?.state, s.ledger.order('a')?.sentAt]).toEqual(['NEW', 1_000_000]);
    expect(s.events.filter((e) => e.type === 'orderUpdate').map((e) => e.type === 'orderUpdate' && e.state)).toEqual(['PENDING', 'NEW']);
    // A clientId taken: refused, its verdict recorded, nothing more sent.
    const again = p.gate(place('a', '2'), {});
    expect(again).toEqual({ kind: 'reject', reason: 'DUPLICATE_CLIENT_ID', message: 'clientId="a" was already used' });
    expect([s.ledger.count('intents'), s.ledger.count('risk_decisions'), s.ledger.count('orders')]).toEqual([2, 2, 1]);
    expect(s.ledger.order('a')?.intentId).toBe(intent.intentId);
    expect(p.stats).toEqual({ intents: 2, accepted: 1, adjusted: 0, rejected: 1 });
  });

  it('halts new orders while reconciling after reconcileNeeded, allows cancels, then resumes', async () => {
    const { p, bus, events, router, release } = setup();
    bus.publish({ type: 'reconcileNeeded', E: 1, reason: 'user stream reconnected' });
    expect(p.state).toBe('HALTED');
    expect(router.reconciles).toBe(1);
    const r = p.gate(place('c'), {});
    expect(r.kind === 'reject' && r.reason).toBe('TRADING_HALTED');
    expect(p.gate({ kind: 'cancel', strategy: 's', intentId: 'x', symbol: 'BTC_IDR', clientId: 'a' }, {}).kind).toBe('accept');
    release();
    await p.settled();
    expect(p.state).toBe('ACTIVE');
    // The trading-state machine publishes the halt; the pipeline does not publish it again.
    expect(events.filter((e) => e.type === 'tradingState')).toEqual([]);
  });

  it('leaves tradingState events to the state machine, and reports the end of reconciliation', async () => {
    const bus = new Bus();
    const events: BusEvent[] = [];
    bus.events$.subscribe((e) => events.push(e));
    let reconciled = 0;
    const p = reconcilingPipeline(bus, () => Promise.resolve(), { onReconciled: () => reconciled++ });
    bus.publish({ type: 'reconcileNeeded', E: 1, reason: 'x' });
    expect(p.state).toBe('HALTED');
    await p.settled();
    expect(p.state).toBe('ACTIVE');
    expect(reconciled).toBe(1);
    expect(events.filter((e) => e.type === 'tradingState')).toHaveLength(0);
  });

  it('feeds executionReports to the router', () => {
    const { bus, router, p } = setup();
    bus.publish({ type: 'executionReport' } as BusEvent);
    expect(router.reports).toBe(1);
    p.stop();
    bus.publish({ type: 'executionReport' } as BusEvent);
    expect(router.reports).toBe(1);
  });
});

describe('createPipeline reconciliation failures', () => {
  it('keeps new orders halted and retries when the reconciliation itself fails, instead of resuming on unreconciled state', async () => {
    const bus = new Bus();
    let calls = 0;
    let reconciled = 0;
    // The REST outage that dropped the user stream also fails the first two reconciliations.
    const reconcile = () => (++calls <= 2 ? Promise.reject(new Error('HTTP 502')) : Promise.resolve());
    const p = reconcilingPipeline(bus, reconcile, { reconcileRetryMs: 1, onReconciled: () => reconciled++ });
    bus.publish({ type: 'reconcileNeeded', E: 1, reason: 'user stream reconnected' });
    await Promise.resolve();
    await Promise.resolve();
    // Missed fills are not known yet: a new order would be decided on a wrong position.
    expect(calls).toBe(1);
    expect(p.state).toBe('HALTED');
    expect(reconciled).toBe(0);
    const r = p.gate(place('after-failure'), {});
    expect(r.kind === 'reject' && r.reason).toBe('TRADING_HALTED');
    await p.settled();
    expect(calls).toBe(3);
    expect(p.state).toBe('ACTIVE');
    expect(reconciled).toBe(1);
  });

  it('never ends in an unhandled rejection when recording the end of a reconciliation fails (a ledger closed at shutdown)', async () => {
    const bus = new Bus();
    let release: () => void = () => undefined;
    const p = reconcilingPipeline(bus, () => new Promise<void>((r) => (release = r)), {
      onReconciled: () => {
        throw new TypeError('The database connection is not open');
      },
    });
    bus.publish({ type: 'reconcileNeeded', E: 1, reason: 'user stream reconnected' });
    p.stop();
    release();
    await expect(p.settled()).resolves.toBeUndefined();
    expect(p.state).toBe('ACTIVE');
  });

  it('stops retrying a failing reconciliation when the pipeline stops', async () => {
    const bus = new Bus();
    let calls = 0;
    const p = reconcilingPipeline(bus, () => (calls++, Promise.reject(new Error('down'))), { reconcileRetryMs: 60_000 });
    bus.publish({ type: 'reconcileNeeded', E: 1, reason: 'x' });
    await Promise.resolve();
    p.stop();
    await p.settled();
    expect(calls).toBe(1);
  });
});
