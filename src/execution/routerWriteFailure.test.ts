/**
 * The router handles most errors itself (a failed answer is the exchange's, a task's error is
 * logged): a ledger write that fails inside its chains must still reach the run, through the
 * ledger's onWriteFailure, so the run stops instead of trading on unjournalled.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { VirtualClock } from '../core/clock.js';
import { Ledger } from '../store/Ledger.js';
import { fillDisk } from '../store/testFullDisk.js';
import { FakeExchange } from './FakeExchange.js';
import { silentLogger } from './log.js';
import { OrderRouter } from './OrderRouter.js';
import { OrderTracker } from './OrderTracker.js';
import { place } from './routerTestSetup.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function setup() {
  const dir = mkdtempSync(join(tmpdir(), 'kancil-router-full-'));
  dirs.push(dir);
  const path = join(dir, 'ledger.db');
  const told: string[] = [];
  const clock = new VirtualClock(1_000_000);
  const ledger = Ledger.open(path, { onWriteFailure: (err) => told.push(err instanceof Error ? err.message : String(err)) });
  const tracker = new OrderTracker({ ledger, clock, emit: () => undefined });
  const ex = new FakeExchange(() => clock.now());
  const failedTasks: unknown[] = [];
  const log = { ...silentLogger, error: (o: object, msg: string) => (msg === 'order task failed' ? failedTasks.push(o) : undefined) };
  const router = new OrderRouter({ open: ex.open, tracker, ledger, clock, log, symbols: ['BTC_IDR'], pollMs: 0 });
  return { path, told, clock, ledger, ex, router, failedTasks };
}

/** The disk fills while the next placement is out: journalled and sent, its answer cannot be recorded. */
function fillDiskWhilePlacing(s: ReturnType<typeof setup>): { room: () => void } {
  const newOrder = s.ex.open.newOrder;
  let room: (() => void) | undefined;
  (s.ex.open as { newOrder: typeof newOrder }).newOrder = async (p) => {
    const x = await newOrder(p);
    room = fillDisk(s.path);
    return x;
  };
  return { room: () => room?.() };
}

describe('a ledger write that fails inside the router', () => {
  it('recording the REST answer of a placement: the run is told, though the task only logs it', async () => {
    const s = setup();
    const disk = fillDiskWhilePlacing(s);
    const intent = place();
    s.router.submit(intent);
    await s.router.idle();
    expect(s.ex.requests.newOrder).toBe(1);
    expect(s.told[0]).toBe('database or disk is full');
    disk.room();
    expect(s.ledger.order(intent.clientId)?.sentAt).toBeDefined();
    await s.router.stop();
    s.ledger.close();
  });

  it('journalling the circuit going half-open, read in the poll loop: the tick resolves, the run is told', async () => {
    const s = setup();
    s.router.breaker.recordFailure('maintenance');
    const room = fillDisk(s.path);
    s.clock.advanceTo(s.clock.now() + 5000);
    // Before: the tick's promise rejected, an unhandled rejection in the poll loop's timer.
    await expect(s.router.tick()).resolves.toBeUndefined();
    expect(() => s.router.cancelAll()).not.toThrow();
    expect(s.router.breaker.state).not.toBe('open');
    expect(s.told[0]).toBe('database or disk is full');
    room();
    await s.router.stop();
    s.ledger.close();
  });

  it('an order placed whose answer could not be recorded is still cancelled when the stop asks', async () => {
    const s = setup();
    const disk = fillDiskWhilePlacing(s);
    s.router.submit(place());
    await s.router.idle();
    const [resting] = [...s.ex.orders.values()];
    expect(resting?.status).toBe('NEW');
    // Before: the lookup found it, could not record it and threw before the cancel: left resting.
    s.clock.advanceTo(s.clock.now() + 10_000);
    await s.router.cancelAllAndWait(0);
    expect(s.ex.requests.cancel).toBe(1);
    expect(resting?.status).toBe('CANCELED');
    // Every retry of the lookup fails the same way: logged once, not every 2 s.
    for (let i = 0; i < 5; i++) {
      s.clock.advanceTo(s.clock.now() + 2500);
      await s.router.tick();
      await s.router.idle();
    }
    expect(s.failedTasks).toHaveLength(1);
    disk.room();
    await s.router.stop();
    s.ledger.close();
  });
});
