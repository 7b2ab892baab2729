/**
 * Writes recording lines to gzip files, rotating by uncompressed size or by age. Every file
 * starts with a header line; the owner is told about each new file so it can put a fresh REST
 * snapshot at its start (any file can then be replayed alone). `close()` ends the gzip stream
 * and resolves only when every byte is on disk.
 */
import { createWriteStream, mkdirSync } from 'node:fs';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { createGzip, type Gzip } from 'node:zlib';
import type { Clock } from '../core/clock.js';
import { systemClock } from '../core/clock.js';
import { type RecordingHeader, formatHeaderLine } from './format.js';

/** Options of a writer. */
export interface RecordingWriterOptions {
  /** Directory for the files (created when missing). */
  readonly dir: string;
  /** File name prefix. */
  readonly prefix: string;
  readonly header: Omit<RecordingHeader, 'format' | 'version'>;
  /** Rotate after this many uncompressed bytes (default 256 MiB). */
  readonly maxBytes?: number;
  /** Rotate after this long (default 1 hour). */
  readonly maxMs?: number;
  readonly clock?: Clock;
  /** Called after a new file is opened (including the first). */
  readonly onNewFile?: (file: string) => void;
  /**
   * Whether the current file may be closed yet (e.g. only once it holds its snapshots).
   * Ignored past twice the size or age limit so a failing snapshot source cannot grow a file forever.
   */
  readonly mayRotate?: () => boolean;
}

interface OpenFile {
  readonly file: string;
  readonly gzip: Gzip;
  readonly done: Promise<void>;
  readonly openedAt: number;
  bytes: number;
}

/** A rotating gzip line writer. */
export class RecordingWriter {
  readonly files: string[] = [];
  #cur: OpenFile | undefined;
  readonly #closing: Promise<void>[] = [];
  #seq = 0;
  #closed = false;
  readonly #clock: Clock;
  /** Lines written. */
  lines = 0;
  /** The first file that could not be written (a full disk), once there is one: nothing more is written. */
  failure: { readonly file: string; readonly error: Error } | undefined;
  /** Settles at the first failure (never rejects): the owner stops recording and flushes the rest. */
  readonly failed: Promise<{ readonly file: string; readonly error: Error }>;
  #fail: (f: { readonly file: string; readonly error: Error }) => void = () => undefined;

  constructor(private readonly opts: RecordingWriterOptions) {
    this.#clock = opts.clock ?? systemClock;
    this.failed = new Promise((resolve) => (this.#fail = resolve));
    mkdirSync(opts.dir, { recursive: true });
  }

  /** Appends one line (must end with a newline); rotates first when the current file is full or old. */
  write(line: string): void {
    if (this.#closed) throw new Error('recording writer is closed');
    // After a failed write the stream is gone: lines are dropped until the owner stops.
    if (this.failure !== undefined) return;
    const now = this.#clock.now();
    let cur = this.#cur;
    if (cur !== undefined && this.#full(cur, now)) {
      this.#retire(cur);
      cur = undefined;
    }
    cur ??= this.#open(now);
    cur.gzip.write(line);
    cur.bytes += Buffer.byteLength(line);
    this.lines++;
  }

  #full(f: OpenFile, now: number): boolean {
    const maxBytes = this.opts.maxBytes ?? 256 * 1024 * 1024;
    const maxMs = this.opts.maxMs ?? 3_600_000;
    const age = now - f.openedAt;
    if (f.bytes < maxBytes && age < maxMs) return false;
    return this.opts.mayRotate === undefined || this.opts.mayRotate() || f.bytes >= 2 * maxBytes || age >= 2 * maxMs;
  }

  /** Starts a new file now. */
  rotate(): void {
    if (this.#cur !== undefined) this.#retire(this.#cur);
  }

  #open(now: number): OpenFile {
    const stamp = new Date(now).toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z');
    const file = path.join(this.opts.dir, `${this.opts.prefix}-${stamp}-${String(this.#seq++).padStart(4, '0')}.rec.gz`);
    const gzip = createGzip();
    // Awaited only at the file's close: a failure before that (ENOSPC) is kept here, not left to
    // end the process as an unhandled rejection with every other file cut short.
    const done = pipeline(gzip, createWriteStream(file)).catch((err: unknown) => {
      if (this.failure !== undefined) return;
      this.failure = { file, error: err instanceof Error ? err : new Error(String(err)) };
      this.#fail(this.failure);
    });
    const f: OpenFile = { file, gzip, done, openedAt: now, bytes: 0 };
    this.#cur = f;
    this.files.push(file);
    const header = formatHeaderLine({ format: 'kancil-recording', version: 1, createdAt: new Date(now).toISOString(), ...this.opts.header });
    gzip.write(header);
    f.bytes += Buffer.byteLength(header);
    this.opts.onNewFile?.(file);
    return f;
  }

  #retire(f: OpenFile): void {
    if (this.#cur === f) this.#cur = undefined;
    f.gzip.end();
    this.#closing.push(f.done);
  }

  /** Ends the current file and waits until every file is completely written. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#cur !== undefined) this.#retire(this.#cur);
    await Promise.all(this.#closing);
  }
}
