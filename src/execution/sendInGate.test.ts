/**
 * The send of an order the router sends at once is journalled in the gate's commit (sentAt with
 * the PENDING order): what the ledger holds at each step, and what a crash before the request
 * leaves to the restart.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { VirtualClock } from '../core/clock.js';
import { Ledger } from '../store/Ledger.js';
import { crashImage } from '../store/testCrashImage.js';
import { FakeExchange } from './FakeExchange.js';
import { OrderRouter } from './OrderRouter.js';
import { OrderTracker } from './OrderTracker.js';
import { silentLogger } from './log.js';
import { placeIntents } from './testIntents.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const place = placeIntents('s1', (n) => ({ intentId: `i${n}`, clientId: `c${n}` }));
const verdict = (intentId: string) => ({ intentId, accepted: true, adjusted: false, reason: undefined, message: undefined });

/** A router over a file ledger and a FakeExchange; every patch the ledger commits noted. */
function setup() {
  const dir = mkdtempSync(join(tmpdir(), 'kancil-send-'));
  dirs.push(dir);
  const path = join(dir, 'ledger.db');
  const ledger = Ledger.open(path);
  const patches: string[][] = [];
  const update = ledger.updateOrder.bind(ledger);
  ledger.updateOrder = (clientId, patch, ...rest) => (patches.push(Object.keys(patch)), update(clientId, patch, ...rest));
  const clock = new VirtualClock(1_000_000);
  const tracker = new OrderTracker({ ledger, clock, emit: () => undefined });
  const ex = new FakeExchange(() => clock.now());
  const router = new OrderRouter({ open: ex.open, tracker, ledger, clock, log: silentLogger, symbols: ['BTC_IDR'], pollMs: 0, settleMs: 6000 });
  return { path, ledger, patches, clock, tracker, ex, router };
}

describe('the send journalled in the gate commit', () => {
  it('is in the order row the gate writes; the placement then commits no send of its own', async () => {
    const s = setup();
    const intent = place();
    expect(s.router.journalGate(1_000_000, intent, verdict(intent.intentId), intent, verdict(intent.intentId))).toBe(true);
    expect([s.ledger.order(intent.clientId)?.state, s.ledger.order(intent.clientId)?.sentAt]).toEqual(['PENDING', 1_000_000]);
    s.router.submit(intent);
    await s.router.idle();
    expect(s.ex.requests.newOrder).toBe(1);
    expect(s.ledger.order(intent.clientId)?.state).toBe('NEW');
    // Only the answer's change: no sentAt patch.
    expect(s.patches).toEqual([['state', 'orderId']]);
    s.ledger.close();
  });

  it('with the open API circuit open is left to the placement (it may go to the legacy interface)', () => {
    const s = setup();
    for (let i = 0; i < 3; i++) s.router.breaker.recordFailure('server');
    const intent = place();
    s.router.journalGate(1_000_000, intent, verdict(intent.intentId), intent, verdict(intent.intentId));
    expect(s.ledger.order(intent.clientId)?.sentAt).toBeUndefined();
    s.ledger.close();
  });

  it('of an order that never left (a crash before its request): restart closes it as not placed once the settle time has passed, and sends nothing', async () => {
    const s = setup();
    const intent = place();
    s.router.journalGate(1_000_000, intent, verdict(intent.intentId), intent, verdict(intent.intentId));
    const image = crashImage(s.path);
    s.clock.advanceTo(1_000_000 + 6001);
    const tracker = new OrderTracker({ ledger: image, clock: s.clock, emit: () => undefined });
    const router = new OrderRouter({ open: s.ex.open, tracker, ledger: image, clock: s.clock, log: silentLogger, symbols: ['BTC_IDR'], pollMs: 0, settleMs: 6000 });
    expect(await router.recover(0)).toEqual([]);
    expect(image.order(intent.clientId)?.state).toBe('REJECTED');
    expect(image.order(intent.clientId)?.reason).toMatch(/^NOT_PLACED/);
    expect(s.ex.requests.newOrder).toBe(0);
    image.close();
    s.ledger.close();
  });
});
