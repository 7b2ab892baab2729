/**
 * A recording read from disk as the replay goes, with a bounded read-ahead: a day (or many GB) of
 * recording never sits in memory, only the next few thousand parsed messages. Reading pauses when
 * the read-ahead is full and resumes when the replay has taken half of it; a looped replay reads
 * the file again from the start. Each pass starts at the first depth snapshot (the diffs buffered
 * before it in the recording are older than it).
 *
 * Opening checks what makes the replay impossible (an unreadable or binary file, no snapshot for
 * the symbol) and refuses with a ConfigError naming the file; a bad line later in a long file is
 * counted and skipped with its line number, as the feed counts the engine's refusals, rather than
 * stopping a market that is running.
 */
import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { createGunzip } from 'node:zlib';
import { ConfigError } from '../core/index.js';
import { BINARY_MAGIC, parseRecordingLine, type RecordedEvent } from './recording.js';

/** Default read-ahead (parsed messages). */
export const DEFAULT_READ_AHEAD = 8192;

/** A recording file read forward with a bounded buffer. */
export class RecordingStream {
  #buf: RecordedEvent[] = [];
  #head = 0;
  #input: Readable | undefined;
  #raw: Readable | undefined;
  #decoder = new StringDecoder('utf8');
  #rest = '';
  #line = 0;
  #synced = false;
  #paused = false;
  #eof = false;
  #closed = false;
  #waiters: (() => void)[] = [];
  #lo = Infinity;
  #hi = -Infinity;
  #passes = 0;
  /** Lines that could not be read, skipped (after the first snapshot). */
  badLines = 0;
  /** The last bad line or read error, naming the file and line. */
  lastError: string | undefined;
  /** Set when a pass ended because the file could not be read on (a .gz cut short or corrupt): the rest of the recording was never played. */
  readFailure: string | undefined;

  private constructor(
    readonly file: string,
    readonly symbol: string,
    readonly gzip: boolean,
    readonly readAhead: number,
  ) {}

  /**
   * Opens `file` and reads up to its first snapshot of `symbol`. Refuses (ConfigError) a file that
   * cannot be read, a binary recording, a bad line before the snapshot, or no snapshot at all.
   */
  static async open(file: string, symbol: string, readAhead = DEFAULT_READ_AHEAD): Promise<RecordingStream> {
    let head: Buffer;
    try {
      const fh = await open(file, 'r');
      try {
        head = Buffer.alloc(BINARY_MAGIC.length);
        const { bytesRead } = await fh.read(head, 0, head.length, 0);
        head = head.subarray(0, bytesRead);
      } finally {
        await fh.close();
      }
    } catch (e) {
      throw new ConfigError(file, '', undefined, `cannot read recording: ${e instanceof Error ? e.message : String(e)}`);
    }
    if (head.toString('latin1') === BINARY_MAGIC) throw new ConfigError(file, '', undefined, 'cannot read recording: a binary (.krb) recording: the sandbox replays text recordings (kancil record writes them; .rec.gz)');
    const s = new RecordingStream(file, symbol, head[0] === 0x1f && head[1] === 0x8b, Math.max(2, readAhead));
    s.#start(true);
    await s.ready();
    // The error names the file already; the ConfigError puts it in front again.
    if (s.lastError !== undefined && !s.#synced) throw new ConfigError(file, '', undefined, s.lastError.startsWith(`${file}: `) ? s.lastError.slice(file.length + 2) : s.lastError);
    if (s.peek()?.kind !== 'snapshot') throw new ConfigError(file, '', undefined, `recording has no depth snapshot for ${symbol}`);
    return s;
  }

  /** The next message without taking it; undefined when none is buffered (see {@link ready}, {@link done}). */
  peek(): RecordedEvent | undefined {
    return this.#buf[this.#head];
  }

  /** Takes the next message; reading resumes once half the read-ahead is taken. */
  take(): RecordedEvent | undefined {
    const ev = this.#buf[this.#head];
    if (ev === undefined) return undefined;
    this.#head++;
    if (this.#head >= 1024 && this.#head * 2 >= this.#buf.length) {
      this.#buf = this.#buf.slice(this.#head);
      this.#head = 0;
    }
    if (this.#paused && this.buffered <= this.readAhead / 2) {
      this.#paused = false;
      this.#input?.resume();
    }
    return ev;
  }

  /** Messages read ahead and not taken yet. */
  get buffered(): number {
    return this.#buf.length - this.#head;
  }

  /** True once the pass has been read to its end and every message taken. */
  get done(): boolean {
    return this.#eof && this.buffered === 0;
  }

  /** Settles when a message is buffered or the pass has ended. */
  ready(): Promise<void> {
    if (this.buffered > 0 || this.#eof || this.#closed) return Promise.resolve();
    return new Promise((resolve) => this.#waiters.push(resolve));
  }

  /**
   * The span of the recording's trades rounded up to whole minutes (at least one), known once a
   * whole pass has been read: a looped replay shifts each pass's bars by it.
   */
  get passLength(): number {
    return this.#hi < this.#lo ? 60_000 : Math.ceil((this.#hi - this.#lo + 1) / 60_000) * 60_000;
  }

  /** Starts the next pass: reads the file again from the start (a looped replay). */
  rewind(): void {
    this.#stopInput();
    this.#buf = [];
    this.#head = 0;
    this.#start(false);
  }

  /** Stops reading; pending {@link ready} calls settle. */
  close(): void {
    this.#closed = true;
    this.#stopInput();
    this.#wake();
  }

  #start(first: boolean): void {
    this.#passes++;
    this.#decoder = new StringDecoder('utf8');
    this.#rest = '';
    this.#line = 0;
    this.#synced = false;
    this.#eof = false;
    this.#paused = false;
    const raw = createReadStream(this.file, { highWaterMark: 256 * 1024 });
    const input: Readable = this.gzip ? raw.pipe(createGunzip()) : raw;
    const failed = (e: Error): void => {
      if (this.#input !== input) return;
      // Named as the record readers name it (record/line-reader.ts): the line reached and the bytes read.
      this.lastError = `${this.file}: line ${this.#line + 1}: ${this.gzip ? 'the gzip data is cut short or corrupt' : 'read failed'} (${e.message}) within the first ${raw.bytesRead} bytes of the file`;
      this.readFailure = this.lastError;
      this.#end();
    };
    raw.on('error', failed);
    input.on('error', failed);
    input.on('data', (chunk: Buffer) => {
      if (this.#input === input) this.#lines(this.#decoder.write(chunk), first);
    });
    input.on('end', () => {
      if (this.#input !== input) return;
      this.#lines(`${this.#decoder.end()}\n`, first);
      this.#end();
    });
    this.#input = input;
    this.#raw = raw;
  }

  #lines(text: string, first: boolean): void {
    const all = this.#rest + text;
    let from = 0;
    for (let nl = all.indexOf('\n'); nl >= 0 && !this.#eof; nl = all.indexOf('\n', from)) {
      const line = all.slice(from, nl).trim();
      from = nl + 1;
      this.#line++;
      if (line !== '') this.#one(line, first);
    }
    this.#rest = all.slice(from);
    if (this.buffered > 0) this.#wake();
    if (!this.#paused && this.buffered >= this.readAhead && this.#input !== undefined) {
      this.#paused = true;
      this.#input.pause();
    }
  }

  #one(line: string, first: boolean): void {
    let ev: RecordedEvent | undefined;
    try {
      ev = parseRecordingLine(line, this.symbol);
    } catch (e) {
      this.badLines++;
      this.lastError = `${this.file} line ${this.#line}: ${e instanceof Error ? e.message : String(e)}: ${line.slice(0, 80)}`;
      // Before the snapshot of the first pass the file is still being checked: refuse it.
      if (first && !this.#synced) this.#end();
      return;
    }
    if (ev === undefined) return;
    if (!this.#synced) {
      if (ev.kind !== 'snapshot') return;
      this.#synced = true;
    }
    if (ev.kind === 'trade' && this.#passes === 1) {
      this.#lo = Math.min(this.#lo, ev.T);
      this.#hi = Math.max(this.#hi, ev.T);
    }
    this.#buf.push(ev);
  }

  #end(): void {
    this.#eof = true;
    this.#stopInput();
    this.#wake();
  }

  #stopInput(): void {
    const input = this.#input;
    const raw = this.#raw;
    this.#input = undefined;
    this.#raw = undefined;
    input?.destroy();
    if (raw !== input) raw?.destroy();
  }

  #wake(): void {
    const w = this.#waiters;
    this.#waiters = [];
    for (const f of w) f();
  }
}
