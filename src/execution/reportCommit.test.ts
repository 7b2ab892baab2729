/**
 * A report's change without a fill is published at once and committed with the ledger's next
 * write or at the end of the turn (Ledger.queueUpdate): what a crash in between leaves, and the
 * order of rows when the strategy acts on what it heard.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { VirtualClock } from '../core/clock.js';
import type { ExecutionReportEvent } from '../core/marketEvents.js';
import { Ledger } from '../store/Ledger.js';
import { crashImage } from '../store/testCrashImage.js';
import { FakeExchange } from './FakeExchange.js';
import { OrderRouter } from './OrderRouter.js';
import { newOrderOf, OrderTracker, type TrackerEvent } from './OrderTracker.js';
import { silentLogger } from './log.js';
import { placeIntents } from './testIntents.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const place = placeIntents('s1', (n) => ({ intentId: `i${n}`, clientId: `c${n}` }));
const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
const accept = { intentId: '', accepted: true, adjusted: false, reason: undefined, message: undefined };

/** A file ledger, a tracker over it (`onEvent` hears what it publishes) and a FakeExchange. */
function setup(onEvent: (e: TrackerEvent, tracker: OrderTracker) => void = () => undefined) {
  const dir = mkdtempSync(join(tmpdir(), 'kancil-reports-'));
  dirs.push(dir);
  const path = join(dir, 'ledger.db');
  const ledger = Ledger.open(path);
  const clock = new VirtualClock(1_000_000);
  const events: TrackerEvent[] = [];
  const tracker: OrderTracker = new OrderTracker({ ledger, clock, emit: (e) => (events.push(e), onEvent(e, tracker)) });
  return { path, ledger, clock, tracker, events, ex: new FakeExchange(() => clock.now()) };
}

/** An order journalled and marked sent, then placed on the exchange; its REST answer lost. */
async function sentAndPlaced(s: ReturnType<typeof setup>) {
  const intent = place();
  s.tracker.create(newOrderOf(intent, 'open'));
  s.tracker.markSent(intent.clientId, 'open');
  await s.ex.open.newOrder({ symbol: 'BTC_IDR', side: 'BUY', type: 'LIMIT', clientId: intent.clientId, price: intent.price, quantity: intent.quantity });
  return intent.clientId;
}

const states = (events: readonly TrackerEvent[]) => events.flatMap((e) => (e.type === 'orderUpdate' ? [e.state] : []));

describe('report changes committed with the next write or at the end of the turn', () => {
  it.each([
    ['NEW and CANCELED both uncommitted', false, 'PENDING'],
    ['NEW committed at the end of its turn, CANCELED not', true, 'NEW'],
  ])('a crash before the commit (%s): restart reconciliation finds the order by clientId and ends it as the exchange has it', async (_, turnBetween, atCrash) => {
    const s = setup();
    const clientId = await sentAndPlaced(s);
    s.tracker.applyExecutionReport(s.ex.reports[0] as ExecutionReportEvent);
    if (turnBetween) await turn();
    await s.ex.open.cancelOrder({ clientId });
    s.tracker.applyExecutionReport(s.ex.reports[1] as ExecutionReportEvent);
    // The strategy heard both at once.
    expect(states(s.events)).toEqual(['PENDING', 'NEW', 'CANCELED']);
    const image = crashImage(s.path);
    expect([image.order(clientId)?.state, image.order(clientId)?.sentAt]).toEqual([atCrash, 1_000_000]);
    // Second life on what the crash left.
    const tracker = new OrderTracker({ ledger: image, clock: s.clock, emit: () => undefined });
    const router = new OrderRouter({ open: s.ex.open, tracker, ledger: image, clock: s.clock, log: silentLogger, symbols: ['BTC_IDR'], pollMs: 0 });
    expect(await router.recover(0)).toEqual([]);
    expect([image.order(clientId)?.state, image.order(clientId)?.orderId]).toEqual(['CANCELED', s.ex.ordersWithClientId(clientId)[0]?.orderId]);
    expect(s.ex.requests.newOrder).toBe(1);
    image.close();
    s.ledger.close();
  });

  it('an order placed on hearing a report is never in the ledger without that report', async () => {
    let next: string | undefined;
    const s = setup((e, tracker) => {
      // The strategy places again when it hears its order ended: the gate's commit, in the same chain.
      if (e.type !== 'orderUpdate' || e.state !== 'CANCELED') return;
      const intent = place();
      next = intent.clientId;
      tracker.gate(2_000_000, intent, { ...accept, intentId: intent.intentId }, intent, 'open', accept);
    });
    const clientId = await sentAndPlaced(s);
    await s.ex.open.cancelOrder({ clientId });
    for (const r of s.ex.reports) s.tracker.applyExecutionReport(r);
    const image = crashImage(s.path);
    expect(image.order(next ?? '')?.state).toBe('PENDING');
    expect(image.order(clientId)?.state).toBe('CANCELED');
    expect(image.transitions().map((t) => [t.clientId, t.to])).toEqual([[clientId, 'PENDING'], [clientId, 'NEW'], [clientId, 'CANCELED'], [next, 'PENDING']]);
    image.close();
    s.ledger.close();
  });

  it('a fill is committed, with the changes queued before it, before the strategy hears of it', async () => {
    const seen: (string | number | undefined)[][] = [];
    const s = setup((e) => {
      if (e.type !== 'fill') return;
      const image = crashImage(s.path);
      seen.push([image.fills(e.clientId).length, image.order(e.clientId)?.state]);
      image.close();
    });
    const clientId = await sentAndPlaced(s);
    s.ex.fill(s.ex.ordersWithClientId(clientId)[0]?.orderId ?? '', '0.0004');
    for (const r of s.ex.reports) s.tracker.applyExecutionReport(r);
    expect(seen).toEqual([[1, 'NEW']]);
    expect(states(s.events)).toEqual(['PENDING', 'NEW', 'PARTIALLY_FILLED']);
    s.ledger.close();
  });
});
