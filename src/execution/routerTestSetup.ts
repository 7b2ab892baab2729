/** The router test bench shared by the router's test files: a FakeExchange, a virtual clock, an in-memory ledger. */
import { VirtualClock } from '../core/clock.js';
import { Ledger } from '../store/Ledger.js';
import { FakeExchange, type CancelFault } from './FakeExchange.js';
import { OrderRouter } from './OrderRouter.js';
import { OrderTracker, type TrackerEvent } from './OrderTracker.js';
import { type ExecLogger, silentLogger } from './log.js';
import { placeIntents } from './testIntents.js';

/** A router over a FakeExchange (legacy fallback on unless `legacy: false`), its tracker's events collected; silent unless given a `log`. */
export function setup(opts: { legacy?: boolean; unstreamed?: readonly string[]; exchangeBehindMs?: number; log?: ExecLogger } = {}) {
  const clock = new VirtualClock(1_000_000);
  const ledger = Ledger.open(':memory:');
  const events: TrackerEvent[] = [];
  const tracker = new OrderTracker({ ledger, clock, emit: (e) => events.push(e), ...(opts.log ? { log: opts.log } : {}) });
  // The exchange's clock may run behind ours; the open client measures that offset (syncTime).
  const behind = opts.exchangeBehindMs ?? 0;
  const ex = new FakeExchange(() => clock.now() - behind);
  const router = new OrderRouter({
    open: ex.open,
    ...(opts.legacy === false ? {} : { legacy: ex.legacy }),
    tracker,
    ledger,
    clock,
    log: opts.log ?? silentLogger,
    symbols: ['BTC_IDR'],
    pollMs: 0,
    settleMs: 6000,
    maxRetryAgeMs: 10_000,
    breaker: { failureThreshold: 3, openMs: 5000 },
    ...(opts.unstreamed ? { unstreamedSymbols: opts.unstreamed, orderPollMs: 3000 } : {}),
    timeOffsetMs: () => -behind,
  });
  return { clock, ledger, events, tracker, ex, router };
}

/** Place intents of strategy s1 with clientIds c1, c2, ... */
export const place = placeIntents('s1', (n) => ({ intentId: `i${n}`, clientId: `c${n}` }));

/** An order the exchange accepted but answered 5XX: UNKNOWN in the ledger, live on the exchange. */
export async function acceptedButUnknown(opts: Parameters<typeof setup>[0] = {}) {
  const s = setup(opts);
  s.ex.placementFaults.push('acceptThen5xx');
  const intent = place();
  s.router.submit(intent);
  await s.router.idle();
  const state = s.ledger.order(intent.clientId)?.state;
  if (state !== 'UNKNOWN') throw new Error(`expected the order UNKNOWN, got ${String(state)}`);
  return { ...s, intent };
}

/** An order placed (NEW), then a strategy cancel that meets `fault` on the open API. */
export async function placedThenCancelFails(fault: CancelFault) {
  const s = setup();
  const intent = place();
  s.router.submit(intent);
  await s.router.idle();
  s.ex.cancelFaults.push(fault);
  s.router.submit({ kind: 'cancel', strategy: 's1', intentId: 'x', symbol: 'BTC_IDR', clientId: intent.clientId });
  await s.router.idle();
  return { ...s, intent };
}

/** Runs `n` passes of the background loop, the virtual clock advanced `stepMs` before each. */
export async function passes(s: { router: OrderRouter; clock: VirtualClock }, n: number, stepMs = 500): Promise<void> {
  for (let i = 0; i < n; i++) {
    s.clock.advanceTo(s.clock.now() + stepMs);
    await s.router.tick();
    await s.router.idle();
  }
}
