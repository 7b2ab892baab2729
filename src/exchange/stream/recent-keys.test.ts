import { describe, expect, it } from 'vitest';
import { RecentKeys } from './recent-keys.js';

/** What RecentKeys answers: a Set of the last `capacity` keys, the oldest forgotten first. */
class SetModel {
  readonly #seen = new Set<string>();
  constructor(private readonly capacity: number) {}
  add(key: string): boolean {
    if (this.#seen.has(key)) return false;
    this.#seen.add(key);
    if (this.#seen.size > this.capacity) this.#seen.delete(this.#seen.values().next().value as string);
    return true;
  }
}

describe('RecentKeys', () => {
  it('answers as a Set of the last N keys over a long random stream with repeats and evictions', () => {
    let s = 11;
    const rnd = (): number => (s = (s * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
    for (const capacity of [1, 7, 64, 1000]) {
      const keys = new RecentKeys(capacity);
      const model = new SetModel(capacity);
      let dropped = 0;
      const wrong: string[] = [];
      for (let i = 0; i < 20_000; i++) {
        // Keys from a pool three times the capacity: many repeats inside and outside the window.
        const key = `er|${Math.floor(rnd() * capacity * 3)}|c|TRADE|FILLED`;
        const want = model.add(key);
        if (keys.add(key) !== want) wrong.push(`${key} at ${i} (capacity ${capacity})`);
        if (!want) dropped++;
      }
      expect(wrong.slice(0, 3)).toEqual([]);
      expect(dropped).toBeGreaterThan(3000);
      expect(keys.size).toBe(capacity);
      expect(dropped).toBeGreaterThan(1000);
    }
  });

  it('forgets exactly the oldest key when full', () => {
    const keys = new RecentKeys(3);
    for (const k of ['a', 'b', 'c']) expect(keys.add(k)).toBe(true);
    expect(keys.add('a')).toBe(false);
    expect(keys.add('d')).toBe(true); // a leaves
    expect(keys.add('b')).toBe(false);
    expect(keys.add('a')).toBe(true); // b leaves
    expect(keys.add('c')).toBe(false);
    expect(keys.add('b')).toBe(true);
  });

  it('refuses a capacity that is not a positive integer, naming it', () => {
    expect(() => new RecentKeys(0)).toThrow(/capacity.*got 0/);
    expect(() => new RecentKeys(1.5)).toThrow(/got 1.5/);
  });
});
