import { describe, expect, it } from 'vitest';
import { VirtualScheduler, WallScheduler } from './Scheduler.js';

describe('VirtualScheduler', () => {
  it('runs callbacks in (time, insertion) order and moves the clock to each time', () => {
    const s = new VirtualScheduler();
    const seen: string[] = [];
    s.schedule(10, () => seen.push(`b@${s.clock.now()}`));
    s.schedule(5, () => seen.push(`a@${s.clock.now()}`));
    s.schedule(10, () => seen.push(`c@${s.clock.now()}`));
    s.runUntil(9);
    expect(seen).toEqual(['a@5']);
    expect(s.clock.now()).toBe(9);
    s.runUntil(100);
    expect(seen).toEqual(['a@5', 'b@10', 'c@10']);
    expect(s.clock.now()).toBe(100);
  });

  it('never runs work scheduled for later than the target time, even when scheduled from a callback', () => {
    const s = new VirtualScheduler();
    const seen: number[] = [];
    s.schedule(1, () => {
      seen.push(s.clock.now());
      s.schedule(0, () => seen.push(s.clock.now()));
      s.schedule(50, () => seen.push(s.clock.now()));
    });
    s.runUntil(10);
    expect(seen).toEqual([1, 1]);
    expect(s.pending).toBe(1);
    s.drain();
    expect(seen).toEqual([1, 1, 51]);
  });

  it('with nothing queued, runUntil moves the clock forward and never back', () => {
    const s = new VirtualScheduler();
    s.runUntil(7);
    expect(s.clock.now()).toBe(7);
    s.runUntil(3);
    expect(s.clock.now()).toBe(7);
    const seen: number[] = [];
    s.schedule(0, () => seen.push(s.clock.now()));
    s.runUntil(8);
    s.runUntil(9);
    expect([seen, s.clock.now(), s.pending]).toEqual([[7], 9, 0]);
  });

  it('cancel removes a callback', () => {
    const s = new VirtualScheduler();
    let ran = false;
    const id = s.schedule(1, () => (ran = true));
    s.cancel(id);
    s.cancel(12345);
    s.runUntil(5);
    expect(ran).toBe(false);
    expect(s.pending).toBe(0);
    expect(s.nextAt()).toBeUndefined();
  });

  it('keeps order for many random entries (heap property)', () => {
    const s = new VirtualScheduler();
    const out: number[] = [];
    let x = 7;
    for (let i = 0; i < 500; i++) {
      x = (x * 1103515245 + 12345) % 2147483648;
      const d = x % 97;
      s.schedule(d, () => out.push(s.clock.now()));
    }
    s.drain();
    expect(out).toHaveLength(500);
    for (let i = 1; i < out.length; i++) expect(out[i]!).toBeGreaterThanOrEqual(out[i - 1]!);
  });
});

describe('WallScheduler', () => {
  it('runs after setTimeout and cancelAll leaves nothing pending', async () => {
    const s = new WallScheduler();
    const done = new Promise<number>((resolve) => s.schedule(1, () => resolve(1)));
    const never = s.schedule(10_000, () => undefined);
    expect(await done).toBe(1);
    s.cancel(never);
    s.schedule(10_000, () => undefined);
    s.cancelAll();
  });
});
