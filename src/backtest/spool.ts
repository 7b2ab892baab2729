/**
 * What a run appends for its result as it goes (equity and price samples, fills, round trips),
 * held in a bounded buffer and spilled to a temporary file past it, then read back in order as
 * often as needed: a backtest's memory does not grow with its length. A short run never touches
 * the disk. Spill files are removed by `dispose()`, or when the process exits.
 */
import { closeSync, mkdtempSync, openSync, readSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** Spill folders of spools not disposed yet, removed at exit. */
const live = new Set<string>();
let hooked = false;

function spillFile(): { dir: string; file: string; fd: number } {
  const dir = mkdtempSync(path.join(tmpdir(), 'kancil-spool-'));
  live.add(dir);
  if (!hooked) {
    hooked = true;
    process.once('exit', () => {
      for (const d of live) rmSync(d, { recursive: true, force: true });
    });
  }
  const file = path.join(dir, 'spool');
  return { dir, file, fd: openSync(file, 'w+') };
}

/** One spill file: written at its end, read anywhere. */
class Spill {
  readonly #f = spillFile();
  #size = 0;

  get size(): number {
    return this.#size;
  }

  append(b: Uint8Array): void {
    let done = 0;
    while (done < b.length) done += writeSync(this.#f.fd, b, done, b.length - done, this.#size + done);
    this.#size += b.length;
  }

  /** Fills `into` from `position`; returns the bytes read. */
  read(into: Uint8Array, position: number, length = into.length): number {
    let done = 0;
    while (done < length) {
      const n = readSync(this.#f.fd, into, done, length - done, position + done);
      if (n === 0) break;
      done += n;
    }
    return done;
  }

  dispose(): void {
    closeSync(this.#f.fd);
    rmSync(this.#f.dir, { recursive: true, force: true });
    live.delete(this.#f.dir);
  }
}

/**
 * Rows of `width` numbers (doubles, exact as stored). Rows are read back a chunk at a time:
 * `chunks()` yields a chunk's values (row-major) and how many rows it holds; the array is reused
 * from one chunk to the next.
 */
export class NumberSpool {
  readonly width: number;
  readonly #chunkRows: number;
  /** Full chunks kept in memory before any is spilled. */
  readonly #memChunks: number;
  readonly #held: Float64Array[] = [];
  #cur: Float64Array;
  #curRows = 0;
  #rows = 0;
  #spill: Spill | undefined;

  constructor(width: number, opts: { chunkRows?: number; memChunks?: number } = {}) {
    this.width = width;
    this.#chunkRows = opts.chunkRows ?? 8192;
    this.#memChunks = opts.memChunks ?? 2;
    this.#cur = new Float64Array(width * this.#chunkRows);
  }

  /** Rows appended. */
  get length(): number {
    return this.#rows;
  }

  /** Appends one row (the first `width` values of `row`). */
  push(row: ArrayLike<number>): void {
    const w = this.width;
    const at = this.#curRows * w;
    for (let i = 0; i < w; i++) this.#cur[at + i] = row[i] as number;
    this.#rows++;
    if (++this.#curRows === this.#chunkRows) {
      if (this.#held.length < this.#memChunks) {
        this.#held.push(this.#cur);
        this.#cur = new Float64Array(w * this.#chunkRows);
      } else (this.#spill ??= new Spill()).append(new Uint8Array(this.#cur.buffer));
      this.#curRows = 0;
    }
  }

  /** Value `col` of the last row, or undefined when there is none. */
  last(col: number): number | undefined {
    if (this.#rows === 0) return undefined;
    if (this.#curRows > 0) return this.#cur[(this.#curRows - 1) * this.width + col];
    if (this.#spill !== undefined) {
      const b = new Float64Array(1);
      this.#spill.read(new Uint8Array(b.buffer), this.#spill.size - (this.width - col) * 8);
      return b[0];
    }
    return (this.#held[this.#held.length - 1] as Float64Array)[(this.#chunkRows - 1) * this.width + col];
  }

  /** The rows in order, a chunk at a time. */
  *chunks(): Generator<{ readonly data: Float64Array; readonly rows: number }> {
    for (const c of this.#held) yield { data: c, rows: this.#chunkRows };
    const spill = this.#spill;
    if (spill !== undefined) {
      const buf = new Float64Array(this.width * this.#chunkRows);
      const bytes = new Uint8Array(buf.buffer);
      for (let pos = 0; pos < spill.size; pos += bytes.length) {
        spill.read(bytes, pos);
        yield { data: buf, rows: this.#chunkRows };
      }
    }
    if (this.#curRows > 0) yield { data: this.#cur, rows: this.#curRows };
  }

  /** Column `col` of every row, in order. */
  *column(col: number): Generator<number> {
    const w = this.width;
    for (const { data, rows } of this.chunks()) for (let r = 0; r < rows; r++) yield data[r * w + col] as number;
  }

  /** Removes the spill file; the spool is empty afterwards. */
  dispose(): void {
    this.#spill?.dispose();
    this.#spill = undefined;
    this.#held.length = 0;
    this.#curRows = 0;
    this.#rows = 0;
  }
}

/** Bytes of JSON lines buffered before they are spilled. */
const TEXT_BUFFER = 1 << 20;
/** First size of a record spool's buffer (it doubles up to its limit): a short run's spools stay small. */
const TEXT_BUFFER_START = 1 << 14;
/**
 * Characters of lines joined before they are written to the buffer: a buffer write is a native
 * call (~1 µs for a line of a fill), and a few kilobytes of string die young.
 */
const PENDING_CHARS = 1 << 13;

/**
 * Records kept as JSON lines (what JSON.parse(JSON.stringify(x)) gives back is what is read: plain
 * data with its keys in order, undefined fields dropped). Lines are written into a byte buffer a
 * few kilobytes at a time rather than kept as strings: a string held until the buffer spills
 * outlives several young-generation collections and is copied by each, then promoted (a month of
 * minute bars spools 30k fills).
 */
export class RecordSpool<T> {
  readonly #limit: number;
  /** PENDING_CHARS, or less for a buffer that small: pending lines spill no later than the buffer would. */
  readonly #pendingMax: number;
  #buf: Buffer;
  #bytes = 0;
  #count = 0;
  #spill: Spill | undefined;
  /** Lines not written to the buffer yet (see PENDING_CHARS). */
  #pending = '';
  /** Reads a line back (JSON.parse, or a faster reader giving the same record). */
  readonly #parse: (line: string) => T;

  constructor(opts: { bufferBytes?: number; parse?: (line: string) => T } = {}) {
    this.#limit = opts.bufferBytes ?? TEXT_BUFFER;
    this.#parse = opts.parse ?? ((line) => JSON.parse(line) as T);
    this.#pendingMax = Math.min(PENDING_CHARS, Math.floor(this.#limit / 3));
    this.#buf = Buffer.allocUnsafeSlow(Math.min(this.#limit, TEXT_BUFFER_START));
  }

  /** Records appended. */
  get length(): number {
    return this.#count;
  }

  push(x: T): void {
    this.pushLine(JSON.stringify(x));
  }

  /** Appends a record given as its JSON line: the caller's promise that it is JSON.stringify of a T. */
  pushLine(line: string): void {
    this.#count++;
    this.#pending += `${line}\n`;
    if (this.#pending.length >= this.#pendingMax) this.#write();
  }

  /** Writes the pending lines into the buffer (spilling it first when they do not fit). */
  #write(): void {
    const text = this.#pending;
    if (text.length === 0) return;
    this.#pending = '';
    // At most 3 UTF-8 bytes per UTF-16 unit.
    const most = 3 * text.length;
    if (this.#bytes + most > this.#buf.length && !this.#grow(this.#bytes + most)) {
      this.#flush();
      if (most > this.#buf.length) {
        (this.#spill ??= new Spill()).append(Buffer.from(text, 'utf8'));
        return;
      }
    }
    this.#bytes += this.#buf.write(text, this.#bytes, 'utf8');
  }

  /** Doubles the buffer (up to the limit) until `need` bytes fit; false when they cannot. */
  #grow(need: number): boolean {
    if (need > this.#limit) return false;
    let size = this.#buf.length;
    while (size < need) size = Math.min(this.#limit, 2 * size);
    const b = Buffer.allocUnsafeSlow(size);
    this.#buf.copy(b, 0, 0, this.#bytes);
    this.#buf = b;
    return true;
  }

  #flush(): void {
    if (this.#bytes === 0) return;
    (this.#spill ??= new Spill()).append(this.#buf.subarray(0, this.#bytes));
    this.#bytes = 0;
  }

  /** The records in order (each read back anew). */
  *[Symbol.iterator](): Generator<T> {
    this.#write();
    const parse = this.#parse;
    const spill = this.#spill;
    if (spill !== undefined) {
      const buf = Buffer.allocUnsafe(Math.max(this.#limit, 1 << 16));
      // The unfinished line is carried as bytes: a read may end inside a multi-byte character.
      let carry = Buffer.alloc(0);
      for (let pos = 0; pos < spill.size; ) {
        const n = spill.read(buf, pos, Math.min(buf.length, spill.size - pos));
        pos += n;
        // Decode up to the last complete line: a multi-byte character never spans a newline.
        const end = buf.lastIndexOf(10, n - 1);
        if (end < 0) {
          carry = Buffer.concat([carry, buf.subarray(0, n)]);
          continue;
        }
        const text = carry.length === 0 ? buf.toString('utf8', 0, end + 1) : Buffer.concat([carry, buf.subarray(0, end + 1)]).toString('utf8');
        carry = Buffer.from(buf.subarray(end + 1, n));
        let from = 0;
        for (let nl = text.indexOf('\n'); nl >= 0; from = nl + 1, nl = text.indexOf('\n', from)) yield parse(text.slice(from, nl));
      }
    }
    const text = this.#buf.toString('utf8', 0, this.#bytes);
    let from = 0;
    for (let nl = text.indexOf('\n'); nl >= 0; from = nl + 1, nl = text.indexOf('\n', from)) yield parse(text.slice(from, nl));
  }

  /** Removes the spill file; the spool is empty afterwards. */
  dispose(): void {
    this.#spill?.dispose();
    this.#spill = undefined;
    this.#bytes = 0;
    this.#count = 0;
    this.#pending = '';
  }
}
