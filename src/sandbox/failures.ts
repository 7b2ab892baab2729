/**
 * Where the sandbox's own callbacks (WebSocket frames, housekeeping timers, event fan-out) end when
 * they throw. Outside a request nothing would catch such an error: Node would kill the process, and
 * with it a paper run that hosts the sandbox in-process (orders left NEW, no stop row, no summary).
 * Instead the error is counted, written once to stderr, and `failed` settles so the host process
 * can stop in order; the sandbox itself keeps serving what still works.
 */
import { scrubSecretText } from '../core/secretScrub.js';

/** The failure record of one sandbox. */
export class SandboxFailures {
  /** How many callbacks threw. */
  count = 0;
  /** The first failure, once there is one. */
  first: { readonly where: string; readonly error: Error } | undefined;
  /** Settles with the first failure; never rejects. */
  readonly failed: Promise<{ readonly where: string; readonly error: Error }>;
  #settle: (f: { readonly where: string; readonly error: Error }) => void = () => undefined;

  constructor(private readonly write: (line: string) => void = (line) => process.stderr.write(scrubSecretText(line))) {
    this.failed = new Promise((resolve) => (this.#settle = resolve));
  }

  /** Records that a callback at `where` threw `err` (or, `what`, another failure the sandbox cannot go on from). */
  report(where: string, err: unknown, what = 'internal error'): void {
    this.count++;
    if (this.first !== undefined) return;
    const error = err instanceof Error ? err : new Error(String(err));
    this.first = { where, error };
    // Once: a callback that throws on every tick must not flood the terminal.
    this.write(`kancil sandbox: ${what} in ${where}: ${error.message}\n`);
    this.#settle(this.first);
  }

  /** `fn` with whatever it throws reported instead of escaping to the event loop. */
  guard<A extends unknown[]>(where: string, fn: (...args: A) => void): (...args: A) => void {
    return (...args: A): void => {
      try {
        fn(...args);
      } catch (err) {
        this.report(where, err);
      }
    };
  }
}
