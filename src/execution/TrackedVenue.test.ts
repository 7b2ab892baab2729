import { describe, expect, it } from 'vitest';
import { VirtualClock } from '../core/clock.js';
import { Decimal } from '../core/decimal.js';
import { Bus } from '../bus/Bus.js';
import type { Intent, PlaceIntent } from '../bus/intents.js';
import { Ledger } from '../store/Ledger.js';
import { OrderTracker } from './OrderTracker.js';
import { TrackedVenue } from './TrackedVenue.js';
import { createPipeline } from './pipeline.js';
import { silentLogger } from './log.js';

describe('TrackedVenue', () => {
  it('journals before the simulated venue acts, and closes orders the venue refuses outright', () => {
    const bus = new Bus();
    const ledger = Ledger.open(':memory:');
    const clock = new VirtualClock(5);
    const tracker = new OrderTracker({ ledger, clock, emit: (e) => bus.publish(e) });
    const seenByInner: (string | undefined)[] = [];
    const inner = {
      name: 'sim',
      submit: (i: Intent) => seenByInner.push(i.kind === 'place' ? ledger.order(i.clientId)?.state : undefined),
    };
    const venue = new TrackedVenue(inner, tracker);
    const p = createPipeline({ bus, venue, risk: () => ({ kind: 'accept' }), clock, log: silentLogger, ledger, reconciler: venue });
    p.start();
    const intent: PlaceIntent = { kind: 'place', strategy: 's', intentId: 'i1', clientId: 'c1', symbol: 'BTC_IDR', side: 'BUY', orderType: 'LIMIT', price: new Decimal(1), quantity: new Decimal(1) };
    venue.submit(intent);
    expect(seenByInner).toEqual(['PENDING']);
    expect(ledger.order('c1')?.venue).toBe('sim');
    bus.publish({ type: 'intentRejected', E: 6, strategy: 's', intent, reason: 'NOTIONAL', message: 'too small' });
    expect(ledger.order('c1')?.state).toBe('REJECTED');
    expect(ledger.order('c1')?.reason).toBe('NOTIONAL: too small');
  });

  it('on a restart, closes the orders an earlier paper run left open: the new simulator has never heard of them', () => {
    const ledger = Ledger.open(':memory:');
    const clock = new VirtualClock(5);
    const first = new TrackedVenue({ name: 'sim', submit: () => undefined }, new OrderTracker({ ledger, clock, emit: () => undefined }));
    const intent: PlaceIntent = { kind: 'place', strategy: 's', intentId: 'i1', clientId: 'c1', symbol: 'BTC_IDR', side: 'BUY', orderType: 'LIMIT', price: new Decimal(1), quantity: new Decimal(1) };
    first.submit(intent);
    // The first run stops without cancelling (or is killed): its order stays live in the ledger.
    expect(ledger.openOrders().map((o) => o.clientId)).toEqual(['c1']);

    clock.advanceTo(10);
    const tracker = new OrderTracker({ ledger, clock, emit: () => undefined });
    const second = new TrackedVenue({ name: 'sim', submit: () => undefined }, tracker);
    const closed = second.recover();
    expect(closed.map((o) => o.clientId)).toEqual(['c1']);
    // Otherwise it would count against open-order and exposure limits forever (a cancel of it is refused as unknown).
    expect(tracker.liveOrders()).toEqual([]);
    expect(ledger.openOrders()).toEqual([]);
    expect(ledger.order('c1')?.state).toBe('EXPIRED');
    expect(ledger.order('c1')?.reason).toMatch(/PAPER_RESTART/);
  });
});
