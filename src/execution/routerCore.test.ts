import { describe, expect, it } from 'vitest';
import { VirtualClock } from '../core/clock.js';
import { Ledger } from '../store/Ledger.js';
import { FakeExchange } from './FakeExchange.js';
import { OrderTracker } from './OrderTracker.js';
import { type ExecLogger, silentLogger } from './log.js';
import { RouterCore } from './routerCore.js';

function core(log: ExecLogger, failures: [unknown, string][], onTaskFailure = (err: unknown, where: string): unknown => failures.push([err, where])): RouterCore {
  const clock = new VirtualClock(1_000_000);
  const ledger = Ledger.open(':memory:');
  const tracker = new OrderTracker({ ledger, clock, emit: () => undefined });
  return new RouterCore({ open: new FakeExchange(() => clock.now()).open, tracker, ledger, clock, log, symbols: ['BTC_IDR'], onTaskFailure: (err, where) => void onTaskFailure(err, where) });
}

describe('RouterCore.track', () => {
  it('hands a task that rejects to the run\'s failure, not to an unhandled rejection', async () => {
    const failures: [unknown, string][] = [];
    const c = core(silentLogger, failures);
    const boom = new Error('boom');
    c.track(Promise.reject(boom));
    await c.idle();
    expect(failures).toEqual([[boom, 'an order router task']]);
  });

  it('an order task whose failure cannot even be logged reaches it too, and the order\'s next task runs', async () => {
    const failures: [unknown, string][] = [];
    const full = new Error('ENOSPC: no space left on device, write');
    const c = core({ ...silentLogger, error: () => { throw full; } }, failures);
    c.enqueue('c1', () => Promise.reject(new Error('cancel refused')));
    await c.idle();
    expect(failures).toEqual([[full, 'an order router task']]);
    // The order's next call still runs.
    let ran = false;
    c.enqueue('c1', () => Promise.resolve(void (ran = true)));
    await c.idle();
    expect(ran).toBe(true);
  });

  it('a failure whose report throws too ends in no unhandled rejection', async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (r: unknown): void => void unhandled.push(r);
    process.on('unhandledRejection', onUnhandled);
    try {
      const c = core(silentLogger, [], () => {
        throw new Error('ENOSPC: no space left on device, write');
      });
      c.track(Promise.reject(new Error('boom')));
      await c.idle();
      await new Promise((r) => setImmediate(r));
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });
});
