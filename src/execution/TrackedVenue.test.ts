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
    const p = createPipeline({ bus, venue, risk: () => ({ kind: 'accept' }), clock, log: silentLogger, ledger, router: venue });
    p.start();
    const intent: PlaceIntent = { kind: 'place', strategy: 's', intentId: 'i1', clientId: 'c1', symbol: 'BTC_IDR', side: 'BUY', orderType: 'LIMIT', price: new Decimal(1), quantity: new Decimal(1) };
    venue.submit(intent);
    expect(seenByInner).toEqual(['PENDING']);
    expect(ledger.order('c1')?.venue).toBe('sim');
    bus.publish({ type: 'intentRejected', E: 6, strategy: 's', intent, reason: 'NOTIONAL', message: 'too small' });
    expect(ledger.order('c1')?.state).toBe('REJECTED');
    expect(ledger.order('c1')?.reason).toBe('NOTIONAL: too small');
  });
});
