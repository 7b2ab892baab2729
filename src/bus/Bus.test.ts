import { describe, expect, it } from 'vitest';
import { Bus } from './Bus.js';
import type { BusEvent } from './events.js';

const timer = (E: number): BusEvent => ({ type: 'timer', E });

describe('Bus', () => {
  it("a listener's error goes to onListenerError when there is one (the others still get the event), else to the publisher", () => {
    const errors: [string, number][] = [];
    const bus = new Bus({ onListenerError: (err, e) => errors.push([(err as Error).message, e.E]) });
    const seen: number[] = [];
    bus.listen(() => {
      throw new Error('database or disk is full');
    });
    bus.listen((e) => seen.push(e.E));
    expect(() => bus.publish(timer(1))).not.toThrow();
    expect(errors).toEqual([['database or disk is full', 1]]);
    expect(seen).toEqual([1]);
    const plain = new Bus();
    plain.listen(() => {
      throw new Error('boom');
    });
    expect(() => plain.publish(timer(2))).toThrow('boom');
  });

  it('delivers to listeners and events$ subscribers in the order they joined', () => {
    const bus = new Bus();
    const seen: string[] = [];
    bus.listen((e) => seen.push(`a${e.E}`));
    const sub = bus.events$.subscribe((e) => seen.push(`b${e.E}`));
    const stop = bus.listen((e) => seen.push(`c${e.E}`));
    bus.publish(timer(1));
    stop();
    sub.unsubscribe();
    bus.publish(timer(2));
    expect(seen).toEqual(['a1', 'b1', 'c1', 'a2']);
    expect(bus.published).toBe(2);
  });

  it('a consumer joining during a publish sees only later events (as an RxJS Subject)', () => {
    const bus = new Bus();
    const late: number[] = [];
    bus.listen((e) => {
      if (e.E === 1) bus.listen((x) => late.push(x.E));
    });
    bus.publish(timer(1));
    bus.publish(timer(2));
    expect(late).toEqual([2]);
  });

  it('completes events$ subscribers on close and delivers nothing after', () => {
    const bus = new Bus();
    const seen: number[] = [];
    let completed = 0;
    bus.events$.subscribe({ next: (e) => seen.push(e.E), complete: () => completed++ });
    bus.close();
    bus.publish(timer(1));
    bus.events$.subscribe({ complete: () => completed++ });
    expect(seen).toEqual([]);
    expect(completed).toBe(2);
  });

  it('an error thrown by a listen() consumer reaches the publisher', () => {
    const bus = new Bus();
    bus.listen(() => {
      throw new Error('boom');
    });
    expect(() => bus.publish(timer(1))).toThrow('boom');
  });
});
