import fc from 'fast-check';
import { stat } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { VirtualClock } from '../core/clock.js';
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

  it('the argument form calls fn(arg), in the same (time, insertion) order as the plain form, and cancels alike', () => {
    const s = new VirtualScheduler();
    const seen: string[] = [];
    const log = (x: string): void => {
      seen.push(`${x}@${s.clock.now()}`);
    };
    s.schedule(3, log, 'b');
    s.schedule(1, () => log('a'));
    s.schedule(3, () => log('c'));
    const id = s.schedule(2, log, 'dropped');
    s.schedule(3, log, 'd');
    s.cancel(id);
    expect(s.pending).toBe(4);
    s.drain();
    expect(seen).toEqual(['a@1', 'b@3', 'c@3', 'd@3']);
    expect(s.pending).toBe(0);
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

  it('differential: schedules (also from callbacks), cancels, runs and pending match a linear-scan reference', () => {
    /** The plainest scheduler: a list, the earliest (time, sequence) found by scanning it. */
    class Reference {
      readonly clock = new VirtualClock();
      readonly #list: { at: number; seq: number; fn: () => void }[] = [];
      #seq = 0;
      get pending(): number {
        return this.#list.length;
      }
      schedule(d: number, fn: () => void): number {
        this.#list.push({ at: this.clock.now() + Math.max(0, d), seq: ++this.#seq, fn });
        return this.#seq;
      }
      cancel(id: number): void {
        const i = this.#list.findIndex((e) => e.seq === id);
        if (i >= 0) this.#list.splice(i, 1);
      }
      runUntil(t: number): void {
        for (;;) {
          let best = -1;
          this.#list.forEach((e, i) => {
            const b = this.#list[best];
            if (e.at <= t && (b === undefined || e.at < b.at || (e.at === b.at && e.seq < b.seq))) best = i;
          });
          if (best < 0) break;
          const [e] = this.#list.splice(best, 1);
          this.clock.advanceTo(e!.at);
          e!.fn();
        }
        this.clock.advanceTo(t);
      }
    }
    const arbOp = fc.record({ op: fc.integer({ min: 0, max: 9 }), d: fc.integer({ min: 0, max: 12 }), k: fc.nat(), nested: fc.boolean() });
    fc.assert(
      fc.property(fc.array(arbOp, { maxLength: 150 }), (ops) => {
        const drive = (s: VirtualScheduler | Reference): string[] => {
          const log: string[] = [];
          let label = 0;
          const fire = (l: number, nested: boolean): void => {
            log.push(`${l}@${s.clock.now()}`);
            // Work scheduled from a callback, due now or later (a venue's acknowledgement).
            if (nested) add(l % 3, false);
          };
          const fireNested = (l: number): void => fire(l, true);
          const fireFlat = (l: number): void => fire(l, false);
          const add = (d: number, nested: boolean): number => {
            const l = label++;
            // Every other entry of the heap in the argument form (one function, the label as its argument).
            if (s instanceof VirtualScheduler && l % 2 === 0) return s.schedule(d, nested ? fireNested : fireFlat, l);
            return s.schedule(d, () => fire(l, nested));
          };
          const ids: number[] = [];
          for (const o of ops) {
            if (o.op <= 5) ids.push(add(o.d, o.nested));
            else if (o.op <= 7 && ids.length > 0) s.cancel(ids[o.k % ids.length] as number);
            else s.runUntil(s.clock.now() + o.d);
            log.push(`pending ${s.pending}`);
          }
          s.runUntil(s.clock.now() + 100);
          log.push(`pending ${s.pending} at ${s.clock.now()}`);
          return log;
        };
        expect(drive(new VirtualScheduler())).toEqual(drive(new Reference()));
      }),
      { numRuns: 500 },
    );
  });
});

describe('WallScheduler', () => {
  it('runs after setTimeout and cancelAll leaves nothing pending', async () => {
    const s = new WallScheduler();
    const done = new Promise<number>((resolve) => s.schedule(1, () => resolve(1)));
    const never = s.schedule(10_000, () => undefined);
    expect(await done).toBe(1);
    expect(await new Promise<string>((resolve) => s.schedule(1, resolve, 'arg'))).toBe('arg');
    s.cancel(never);
    s.schedule(10_000, () => undefined);
    s.cancelAll();
  });

  it('runs a zero delay once the I/O in hand is done, not after the 1 ms timer floor', async () => {
    const s = new WallScheduler();
    const seen: string[] = [];
    // Inside an I/O callback an immediate comes before any timer, even one set earlier and due.
    await new Promise<void>((resolve) =>
      stat(fileURLToPath(import.meta.url), () => {
        setTimeout(() => seen.push('timer set first'), 0);
        s.schedule(0, () => seen.push('zero delay'));
        const cancelled = s.schedule(0, () => seen.push('cancelled'));
        s.cancel(cancelled);
        expect(seen).toEqual([]);
        const until = performance.now() + 2;
        while (performance.now() < until) {
          // the timer is due before the loop moves on
        }
        setTimeout(resolve, 5);
      }),
    );
    expect(seen).toEqual(['zero delay', 'timer set first']);
    s.schedule(0, () => seen.push('after cancelAll'));
    s.cancelAll();
    await new Promise((r) => setTimeout(r, 5));
    expect(seen).toEqual(['zero delay', 'timer set first']);
  });
});
