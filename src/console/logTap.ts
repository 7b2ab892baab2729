/**
 * A second destination of the run's logger that keeps the newest lines for the console's log
 * tail. The logger has already redacted each line (REDACT_PATHS), so the page sees what the log
 * file sees. Lines written before a reader attaches are kept (the newest `keep`) and replayed.
 */
import { Writable } from 'node:stream';

/** The log tap. */
export class LogTap {
  /** Give this to the logger as an extra stream. */
  readonly stream: Writable;
  readonly #early: string[] = [];
  #reader: ((line: string) => void) | undefined;
  #partial = '';

  constructor(readonly keep = 200) {
    this.stream = new Writable({
      write: (chunk: Buffer | string, _enc, cb) => {
        this.#take(typeof chunk === 'string' ? chunk : chunk.toString('utf8'));
        cb();
      },
    });
  }

  /** Sends every later line (and the kept earlier ones) to `reader`; undefined detaches. */
  attach(reader: ((line: string) => void) | undefined): void {
    this.#reader = reader;
    if (reader) for (const l of this.#early.splice(0)) reader(l);
  }

  #take(text: string): void {
    const parts = (this.#partial + text).split('\n');
    this.#partial = parts.pop() ?? '';
    for (const line of parts) {
      if (line === '') continue;
      if (this.#reader) {
        try {
          this.#reader(line);
        } catch {
          // The console's trouble is never the logger's.
        }
      } else {
        this.#early.push(line);
        if (this.#early.length > this.keep) this.#early.shift();
      }
    }
  }
}
