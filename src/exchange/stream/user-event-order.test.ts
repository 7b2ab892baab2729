import { describe, expect, it } from 'vitest';
import type { UserDataEvent } from '../../core/marketEvents.js';
import type { Timers } from './timing.js';
import { UserEventOrderer } from './user-event-order.js';

/** Manual clock and timers: time moves only when the test says so. */
function manual(): { now: number; timers: Timers; advance(ms: number): void } {
  const pending: { at: number; fn: () => void; id: number }[] = [];
  let id = 0;
  const m = {
    now: 0,
    timers: {
      setTimeout: (fn: () => void, ms: number) => {
        pending.push({ at: m.now + ms, fn, id: ++id });
        return id;
      },
      clearTimeout: (h: unknown) => {
        const i = pending.findIndex((p) => p.id === h);
        if (i >= 0) pending.splice(i, 1);
      },
    },
    advance(ms: number) {
      m.now += ms;
      for (;;) {
        pending.sort((a, b) => a.at - b.at);
        const next = pending[0];
        if (!next || next.at > m.now) break;
        pending.shift();
        next.fn();
      }
    },
  };
  return m;
}

const st = (E: number, sub = 1): UserDataEvent => ({ type: 'streamTerminated', E, subscriptionId: sub });

describe('UserEventOrderer', () => {
  it('holds events for the window and releases them in E order, dropping duplicates', () => {
    const m = manual();
    const out: number[] = [];
    const o = new UserEventOrderer({ windowMs: 50, clock: { now: () => m.now }, timers: m.timers, emit: (e) => out.push(e.E) });
    o.push(st(30));
    m.advance(10);
    o.push(st(10));
    o.push(st(10));
    o.push(st(20));
    expect(out).toEqual([]);
    m.advance(40); // the first event is due: everything with E <= 30 goes, sorted
    expect(out).toEqual([10, 20, 30]);
    expect(o.duplicates).toBe(1);
    o.push(st(5, 2)); // later than its window allows: delivered, counted as late
    m.advance(50);
    expect(out).toEqual([10, 20, 30, 5]);
    expect(o.late).toBe(1);
  });

  it('window 0 passes through; close flushes what is held', () => {
    const m = manual();
    const out: number[] = [];
    const pass = new UserEventOrderer({ windowMs: 0, clock: { now: () => m.now }, timers: m.timers, emit: (e) => out.push(e.E) });
    pass.push(st(2));
    expect(out).toEqual([2]);
    const held = new UserEventOrderer({ windowMs: 100, clock: { now: () => m.now }, timers: m.timers, emit: (e) => out.push(e.E) });
    held.push(st(9));
    held.push(st(7));
    held.close();
    expect(out).toEqual([2, 7, 9]);
  });
});
