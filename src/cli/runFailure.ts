/**
 * What ends a running bot from inside: an event its own code could not handle (a ledger write
 * that fails on a full disk, a bug), thrown in a socket's or a timer's callback. Thrown on, it
 * would end the process with the bot's orders resting and nothing managing them; reported here,
 * it stops the run as a signal does (strategies stopped, orders cancelled), and the exit code is 1.
 */
import type { Logger } from 'pino';

/** The first failure of a run, and the promise of its stop reason. */
export class RunFailure {
  readonly failed: Promise<string>;
  #resolve: (reason: string) => void = () => undefined;
  #reason: string | undefined;
  #later = 0;
  readonly #log: Logger;

  constructor(log: Logger) {
    this.#log = log;
    this.failed = new Promise<string>((r) => (this.#resolve = r));
  }

  /** The stop reason once a failure was reported, else undefined. */
  get reason(): string | undefined {
    return this.#reason;
  }

  /** Reports an error thrown where nothing could handle it; the first one stops the run. */
  report(err: unknown, where: string): void {
    const message = err instanceof Error ? err.message : String(err);
    if (this.#reason !== undefined) {
      // Every later event may fail the same way (a full disk): counted, logged once in a while.
      if (++this.#later % 1000 === 1) this.#quietly(() => this.#log.warn({ err: message, where, count: this.#later }, 'failing again while the run stops'));
      return;
    }
    const ledger = err instanceof Error && err.name === 'SqliteError';
    this.#reason = `${ledger ? 'ledger write failed' : `${where} failed`}: ${message}`;
    // The stop first: the log may fail the same way as what is reported (a full disk).
    const reason = this.#reason;
    this.#resolve(reason);
    this.#quietly(() => this.#log.error({ err: message, where, ...(err instanceof Error && !ledger ? { stack: err.stack } : {}) }, `${reason}: stopping the run`));
  }

  /** Runs a log call whose own failure must not undo the report (the stop's summary names the reason). */
  #quietly(log: () => void): void {
    try {
      log();
    } catch {
      // Nothing left to tell it to: the run stops with the reason it was given.
    }
  }
}
