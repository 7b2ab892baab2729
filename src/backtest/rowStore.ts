/**
 * Records kept as rows of numbers in a NumberSpool (bounded memory, spilled to disk past it), with
 * the few that do not fit a row kept as JSON lines in a spool of their own and read back in their
 * place: what fillStore.ts and tripStore.ts share.
 */
import { NameTable } from './nameTable.js';
import { NumberSpool, RecordSpool } from './spool.js';

/** Spool sizes (tests make them small to cover the spill). */
export interface RowStoreOptions {
  readonly chunkRows?: number;
  readonly memChunks?: number;
  readonly bufferBytes?: number;
}

/** Rows of `width` numbers; a row whose column `wideCol` is NaN stands for the next JSON line. */
export abstract class RowStore<T> implements Iterable<T> {
  readonly #rows: NumberSpool;
  readonly #wide: RecordSpool<T>;
  readonly #wideCol: number;
  /** The names the rows hold as indexes. */
  protected readonly names = new NameTable();
  /** The row being written (pushRow appends it). */
  protected readonly row: number[];

  constructor(width: number, wideCol: number, opts: RowStoreOptions & { parse?: (line: string) => T }) {
    this.#rows = new NumberSpool(width, opts);
    this.#wide = new RecordSpool<T>({ parse: opts.parse, bufferBytes: opts.bufferBytes });
    this.#wideCol = wideCol;
    this.row = new Array<number>(width).fill(0);
  }

  /** Records appended. */
  get length(): number {
    return this.#rows.length;
  }

  /** Appends the row as written. */
  protected pushRow(): void {
    this.#rows.push(this.row);
  }

  /** Appends a record that does not fit a row, as its JSON line. */
  protected pushWide(line: string): void {
    this.row.fill(0);
    this.row[this.#wideCol] = Number.NaN;
    this.#rows.push(this.row);
    this.#wide.pushLine(line);
  }

  /** The record of the row at `data[at]`. */
  protected abstract read(data: Float64Array, at: number): T;

  /** The records in order (each built anew). */
  [Symbol.iterator](): Generator<T> {
    return this.rowsOf(
      (data, at) => this.read(data, at),
      (x) => x,
    );
  }

  /** Each row read by `ofRow`, each JSON line's record by `ofWide`, in order. */
  protected *rowsOf<U>(ofRow: (data: Float64Array, at: number) => U, ofWide: (x: T) => U): Generator<U> {
    const w = this.#rows.width;
    const col = this.#wideCol;
    let wide: Iterator<T> | undefined;
    for (const { data, rows } of this.#rows.chunks()) {
      for (let at = 0; at < rows * w; at += w) {
        if (!Number.isNaN(data[at + col])) yield ofRow(data, at);
        else {
          wide ??= this.#wide[Symbol.iterator]();
          yield ofWide(wide.next().value as T);
        }
      }
    }
  }

  /** Removes the spill files; the store is empty afterwards. */
  dispose(): void {
    this.#rows.dispose();
    this.#wide.dispose();
  }
}
