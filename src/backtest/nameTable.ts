/**
 * The few names a run's records repeat (strategies, symbols, sides, assets) as small indexes, so a
 * record can be a row of numbers (fillStore.ts, tripStore.ts).
 */

/** Names a table holds (a run has a handful); past it a record keeps its JSON line. */
const MAX_NAMES = 1 << 16;

/** Names by index, and the index of each name. */
export class NameTable {
  readonly #names: string[] = [];
  readonly #index = new Map<string, number>();

  /** The index of a name, added when new; -1 when the table is full. */
  index(s: string): number {
    let i = this.#index.get(s);
    if (i === undefined) {
      if (this.#names.length >= MAX_NAMES) return -1;
      i = this.#names.length;
      this.#names.push(s);
      this.#index.set(s, i);
    }
    return i;
  }

  /** The name at an index {@link index} gave. */
  name(i: number): string {
    return this.#names[i] as string;
  }
}
