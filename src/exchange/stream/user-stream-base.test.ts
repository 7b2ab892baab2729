import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import type { UserDataEvent } from '../../core/marketEvents.js';
import { UserStreamBase, type UserStreamStatus } from './user-stream-base.js';

/** The base class with its parse-and-deliver path exposed, as both stream classes use it. */
class Probe extends UserStreamBase {
  constructor() {
    super({ reorderWindowMs: 0, logger: pino({ level: 'silent' }) }, 'user:test');
  }
  receive(doc: unknown): void {
    const ev = this.parse(doc);
    if (ev !== undefined && ev.type !== 'listenKeyExpired') this.deliver(ev);
  }
  receiveText(text: string): void {
    const doc = this.readJson(text, 'user data message');
    if (doc !== undefined) this.receive(doc);
  }
}

const report = {
  e: 'executionReport', E: 10, s: 'BTCIDR', c: 'c1', S: 'BUY', o: 'LIMIT', f: 'GTC', q: '1', p: '2', P: '0', F: '0', g: -1, C: '',
  x: 'TRADE', X: 'FILLED', r: 'NONE', i: '123', l: '1', z: '1', L: '2', n: '0.001', N: 'BTC', T: 10, t: 7, I: 1, w: false, m: true, M: false, O: 9, Z: '2', Y: '2',
};

function probe() {
  const p = new Probe();
  const events: UserDataEvent[] = [];
  const status: UserStreamStatus[] = [];
  p.events$.subscribe((e) => events.push(e));
  p.status$.subscribe((s) => status.push(s));
  return { p, events, status };
}

describe('UserStreamBase', () => {
  it('a malformed executionReport is counted, skipped, and asks for a reconciliation: the fill it carried must not be lost', () => {
    const { p, events, status } = probe();
    // A new expiry reason, a field of the wrong type: the report cannot be read, the order still changed.
    p.receive({ ...report, z: { amount: 1 } });
    p.receive({ ...report, x: 'EXPIRED', X: 'EXPIRED', eR: 'SOMETHING_NEW' });
    expect(events).toHaveLength(0);
    expect(p.stats.malformed).toBe(2);
    expect(status.filter((s) => s.type === 'reconcileNeeded')).toHaveLength(2);
    expect(status[0]).toMatchObject({ type: 'reconcileNeeded', reason: expect.stringMatching(/malformed executionReport/) as unknown });
    p.receive(report);
    expect(events).toHaveLength(1);
  });

  it('other malformed payloads are counted and skipped without a reconciliation', () => {
    const { p, events, status } = probe();
    p.receive('not an object');
    p.receive({ e: 'somethingElse', E: 1 });
    p.receive({ e: 'outboundAccountPosition', E: 1, u: 1, B: 'x' });
    expect(p.stats.malformed).toBe(3);
    expect(events).toHaveLength(0);
    expect(status).toHaveLength(0);
  });

  it('keeps every digit of an order id sent as a number above 2^53, as the REST side does', () => {
    const { p, events, status } = probe();
    const text = JSON.stringify({ ...report, i: 0 }).replace('"i":0', '"i":12345678901234567891');
    p.receiveText(text);
    expect(status).toHaveLength(0);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ type: 'executionReport', orderId: '12345678901234567891' });
  });
});
