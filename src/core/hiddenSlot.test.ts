import { describe, expect, it } from 'vitest';
import { ReturnOverride } from './hiddenSlot.js';

/** A slot as the lazy events declare theirs (made by a factory here: two of them, each its own private name). */
function makeSlot(): { set(o: object, value: string): void; get(o: object): string | undefined } {
  class Slot extends ReturnOverride {
    readonly #value: string;
    private constructor(o: object, value: string) {
      super(o);
      this.#value = value;
    }
    static set(o: object, value: string): void {
      new Slot(o, value);
    }
    static get(o: object): string | undefined {
      return #value in o ? (o as Slot).#value : undefined;
    }
  }
  return Slot;
}
const Slot = makeSlot();
const OtherSlot = makeSlot();

describe('ReturnOverride slots', () => {
  it('give back what was set, and undefined for objects never set', () => {
    const o = { a: 1 };
    Slot.set(o, 'x');
    expect(Slot.get(o)).toBe('x');
    expect(Slot.get({ a: 1 })).toBeUndefined();
  });

  it('are seen by no property operation: keys, symbols, spread, JSON, deep equality, prototype', () => {
    const o = { type: 'trade', E: 1 };
    Slot.set(o, 'secret');
    expect(Reflect.ownKeys(o)).toEqual(['type', 'E']);
    expect(Object.getOwnPropertySymbols(o)).toEqual([]);
    expect(Slot.get({ ...o })).toBeUndefined();
    expect(JSON.stringify(o)).toBe('{"type":"trade","E":1}');
    expect(o).toStrictEqual({ type: 'trade', E: 1 });
    expect(Object.getPrototypeOf(o)).toBe(Object.prototype);
  });

  it('keep separate slots apart, and refuse a second set on one object', () => {
    const o = {};
    Slot.set(o, 'a');
    expect(OtherSlot.get(o)).toBeUndefined();
    OtherSlot.set(o, 'b');
    expect([Slot.get(o), OtherSlot.get(o)]).toEqual(['a', 'b']);
    expect(() => Slot.set(o, 'c')).toThrow(TypeError);
  });
});
