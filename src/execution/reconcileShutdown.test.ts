/**
 * Shutdown while the router reconciles: stop() must await the reconciliation under way (it ends
 * at its next step), and none may start after it, so that closing the ledger after stop() leaves
 * nothing that writes to it.
 */
import { describe, expect, it } from 'vitest';
import { setup, place } from './routerTestSetup.js';
import { OrderRouter } from './OrderRouter.js';
import { silentLogger } from './log.js';

/** A router whose open-orders listing waits until `release` is called. */
function heldListing() {
  const s = setup();
  let release: () => void = () => undefined;
  const held = new Promise<void>((r) => (release = r));
  let listings = 0;
  const open = {
    ...s.ex.open,
    allOrders: async (q: Parameters<typeof s.ex.open.allOrders>[0]) => {
      listings++;
      await held;
      return s.ex.open.allOrders(q);
    },
  };
  const router = new OrderRouter({ open, tracker: s.tracker, ledger: s.ledger, clock: s.clock, log: silentLogger, symbols: ['BTC_IDR'], pollMs: 0 });
  return { ...s, router, release: () => release(), listings: () => listings };
}

describe('OrderRouter reconciliation at shutdown', () => {
  it('stop() waits for a reconciliation under way, which ends at its next step without touching the ledger after', async () => {
    const s = heldListing();
    const intent = place();
    s.router.submit(intent);
    await s.router.idle();
    const reconciling = s.router.reconcile('user stream reconnected');
    await Promise.resolve();
    expect(s.listings()).toBe(1);
    let stopped = false;
    const stopping = s.router.stop().then(() => (stopped = true));
    await new Promise((r) => setTimeout(r, 20));
    // The exchange has not answered yet: the ledger must stay open until it has.
    expect(stopped).toBe(false);
    s.release();
    await stopping;
    await expect(reconciling).resolves.toBeUndefined();
    expect(s.ledger.journalEntries('reconcileStopped')).toEqual([{ ts: s.clock.now(), data: { reason: 'user stream reconnected' } }]);
    expect(s.ledger.journalEntries('reconciled')).toEqual([]);
    // The order is left as it was for the next start to reconcile.
    expect(s.ledger.order(intent.clientId)?.state).toBe('NEW');
    s.ledger.close();
  });

  it('refuses a reconciliation or a balance read asked for after stop(), even with the ledger closed', async () => {
    const s = setup();
    await s.router.stop();
    s.ledger.close();
    await expect(s.router.reconcile('exchange answered again')).resolves.toBeUndefined();
    await expect(s.router.refreshBalances()).resolves.toBeUndefined();
    expect(s.ex.requests.reads).toBe(0);
  });
});
