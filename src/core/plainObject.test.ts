import { deepStrictEqual } from 'node:assert';
import { describe, expect, it } from 'vitest';
import { plainConstructor } from './plainObject.js';

const Pair = plainConstructor(function (this: { kind: string; a: number; b: string | undefined }, a: number, b: string | undefined) {
  this.kind = 'pair';
  this.a = a;
  this.b = b;
});

describe('plainConstructor', () => {
  it('makes objects a literal would: prototype, constructor, keys, JSON and strict equality', () => {
    const o = new Pair(1, undefined);
    const literal = { kind: 'pair', a: 1, b: undefined };
    expect(Object.getPrototypeOf(o)).toBe(Object.prototype);
    expect(o.constructor).toBe(Object);
    expect(Object.keys(o)).toEqual(['kind', 'a', 'b']);
    expect(JSON.stringify(o)).toBe(JSON.stringify(literal));
    expect({ ...o }).toStrictEqual(literal);
    expect(o).toStrictEqual(literal);
    deepStrictEqual(o, literal);
  });

  it('gives each object its own fields', () => {
    const x = new Pair(1, 'x');
    const y = new Pair(2, 'y');
    expect([x.a, x.b, y.a, y.b]).toEqual([1, 'x', 2, 'y']);
  });
});
