import { describe, expect, it } from 'vitest';
import { ExchangeError, UnknownOutcomeError } from '../core/errors.js';
import type { ExecLogger } from './log.js';
import { isNoSuchOrder, LostOrders } from './lostOrders.js';
import { passes, place, setup } from './routerTestSetup.js';

/** A logger that keeps every line as "level message". */
function captureLog(): { log: ExecLogger; lines: string[] } {
  const lines: string[] = [];
  const at = (level: string) => (_: object, msg?: string): void => void lines.push(`${level} ${msg ?? ''}`);
  return { lines, log: { info: at('info'), warn: at('warn'), error: at('error'), debug: at('debug') } };
}

/** An order placed and resting, then the exchange loses every order it had (a restart that reset its state). */
async function lostOnTheExchange(opts: Parameters<typeof setup>[0] = {}) {
  const s = setup(opts);
  const intent = place();
  s.router.submit(intent);
  await s.router.idle();
  const orderId = s.ledger.order(intent.clientId)?.orderId ?? '';
  expect(s.ledger.order(intent.clientId)?.state).toBe('NEW');
  const kept = s.ex.orders.get(orderId);
  s.ex.orders.clear();
  return { ...s, intent, orderId, kept };
}

describe('the ORDER_LOST rule: orders the exchange says do not exist', () => {
  it('closes an order whose cancel and lookups keep answering "does not exist": EXPIRED with the reason, a journal row, one error line', async () => {
    const { log, lines } = captureLog();
    const s = await lostOnTheExchange({ log });
    s.router.submit({ kind: 'cancel', strategy: 's1', intentId: 'x', symbol: 'BTC_IDR', clientId: s.intent.clientId });
    await s.router.idle();
    expect(s.ledger.order(s.intent.clientId)?.state).toBe('NEW');
    await passes(s, 30); // 15 s of the background loop
    const o = s.ledger.order(s.intent.clientId);
    expect(o?.state).toBe('EXPIRED');
    expect(o?.reason).toMatch(/^ORDER_LOST: the exchange answered "does not exist" \d+ times over [\d.]+ s/);
    expect(s.ledger.countJournal('orderLost')).toBe(1);
    expect(s.router.stats.lost).toBe(1);
    expect(s.events.filter((e) => e.type === 'orderUpdate').at(-1)).toMatchObject({ state: 'EXPIRED', reason: expect.stringMatching(/^ORDER_LOST/) });
    expect(lines.filter((l) => l.startsWith('error'))).toEqual(['error order closed as lost: the exchange does not know it and shows no fill of it beyond those recorded']);
    // Once closed, nothing more is asked or written about it.
    const calls = s.ex.requests.reads + s.ex.requests.cancel;
    const logged = lines.length;
    await passes(s, 20);
    expect(s.ex.requests.reads + s.ex.requests.cancel).toBe(calls);
    expect(lines.length).toBe(logged);
  });

  it('a resting order with no cancel wanted is found lost by the periodic check and closed within seconds, not minutes', async () => {
    const s = await lostOnTheExchange();
    await passes(s, 140, 500); // the first check comes after the 60 s streamed period
    expect(s.ledger.order(s.intent.clientId)?.state).toBe('EXPIRED');
    expect(s.ledger.transitions(s.intent.clientId).at(-1)).toMatchObject({ source: 'lost' });
  });

  it('is not closed when the exchange shows it again before the rule is met (a lagging read)', async () => {
    const s = await lostOnTheExchange();
    s.router.submit({ kind: 'cancel', strategy: 's1', intentId: 'x', symbol: 'BTC_IDR', clientId: s.intent.clientId });
    await s.router.idle();
    await passes(s, 2);
    if (!s.kept) throw new Error('no order');
    s.ex.orders.set(s.orderId, s.kept);
    await passes(s, 20);
    expect(s.ledger.order(s.intent.clientId)?.state).toBe('CANCELED');
    expect(s.ledger.countJournal('orderLost')).toBe(0);
  });

  it('fills the exchange still lists for it are recorded and the order is not called lost that round', async () => {
    const s = await lostOnTheExchange();
    if (!s.kept) throw new Error('no order');
    // The order filled before the exchange lost it; the trade records survived, no report reached us.
    s.ex.orders.set(s.orderId, s.kept);
    s.ex.fill(s.orderId, '0.0005');
    s.ex.orders.clear();
    s.router.submit({ kind: 'cancel', strategy: 's1', intentId: 'x', symbol: 'BTC_IDR', clientId: s.intent.clientId });
    await s.router.idle();
    await passes(s, 14); // the rule's first round settles only the fill
    expect(s.ledger.fills(s.intent.clientId).map((f) => f.qty.toFixed())).toEqual(['0.0005']);
    await passes(s, 30);
    const o = s.ledger.order(s.intent.clientId);
    expect(o?.state).toBe('EXPIRED');
    expect(o?.cumQty.toFixed()).toBe('0.0005');
    expect(s.ledger.fills(s.intent.clientId)).toHaveLength(1);
  });

  it('a lookup that fails (maintenance) is no strike: the order stays open while the outcome is unknown', async () => {
    const s = await lostOnTheExchange();
    s.ex.maintenance = true;
    s.router.submit({ kind: 'cancel', strategy: 's1', intentId: 'x', symbol: 'BTC_IDR', clientId: s.intent.clientId });
    await passes(s, 40);
    expect(s.ledger.order(s.intent.clientId)?.state).toBe('NEW');
    expect(s.ledger.countJournal('orderLost')).toBe(0);
  });

  it('a refused cancel tried every 2 s for 70 s writes a handful of lines, not one per try', async () => {
    const { log, lines } = captureLog();
    const s = await lostOnTheExchange({ log });
    let refused = 0;
    // A refusal that proves nothing about the order (not "does not exist"): it can only be retried.
    const refuse = async (): Promise<never> => {
      refused++;
      throw new ExchangeError(400, -1021, 'Timestamp for this request is outside of the recvWindow.', 'POST /open/v1/orders/cancel');
    };
    Object.assign(s.ex.open, { orderDetail: refuse, cancelOrder: refuse });
    s.router.submit({ kind: 'cancel', strategy: 's1', intentId: 'x', symbol: 'BTC_IDR', clientId: s.intent.clientId });
    await passes(s, 140);
    expect(refused).toBeGreaterThan(60);
    expect(lines.filter((l) => l.startsWith('warn')).length).toBeLessThanOrEqual(6);
  });
});

describe('LostOrders', () => {
  it('needs the strikes and the span both', () => {
    const l = new LostOrders({ strikes: 3, minSpanMs: 5000 });
    expect(l.strike('a', 0)).toBe(false);
    expect(l.strike('a', 100)).toBe(false);
    expect(l.strike('a', 200)).toBe(false); // three strikes in 0.2 s: too quick
    expect(l.strike('a', 5000)).toBe(true);
    l.clear('a');
    expect(l.of('a')).toBeUndefined();
  });

  it('recognises only a refusal naming an unknown order', () => {
    expect(isNoSuchOrder(new ExchangeError(400, -2013, 'Order does not exist.', 'GET /open/v1/orders/detail'))).toBe(true);
    expect(isNoSuchOrder(new ExchangeError(400, -2011, 'Unknown order sent.', 'POST /open/v1/orders/cancel'))).toBe(false);
    expect(isNoSuchOrder(new ExchangeError(503, -2013, 'maintenance', 'x'))).toBe(false);
    expect(isNoSuchOrder(new UnknownOutcomeError('x', 'timeout', undefined, undefined))).toBe(false);
  });
});
