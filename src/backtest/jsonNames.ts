/** JSON of a number as JSON.stringify writes it: null when not finite, else its String (-0 is "0" in both). */
export function jsonNumber(x: number): string {
  return Number.isFinite(x) ? String(x) : 'null';
}

/** JSON strings of the few names a run's records repeat (strategies, symbols, sides, assets). */
export class JsonNames {
  readonly #names = new Map<string, string>();

  /** JSON.stringify(s), remembered for the first 1024 names. */
  json(s: string): string {
    let j = this.#names.get(s);
    if (j === undefined) {
      j = JSON.stringify(s);
      if (this.#names.size < 1024) this.#names.set(s, j);
    }
    return j;
  }
}
