/** What a run's start-up has opened so far, closed in reverse order when a later step fails. */
export class Cleanup {
  readonly #steps: (() => Promise<void> | void)[] = [];

  constructor(...first: (() => Promise<void> | void)[]) {
    this.#steps.push(...first);
  }

  /** Adds closers of what was just opened. */
  push(...steps: (() => Promise<void> | void)[]): void {
    this.#steps.push(...steps);
  }

  /** Closes everything, last opened first; errors are swallowed (the start-up's error is what the user needs). */
  async unwind(): Promise<void> {
    for (const c of this.#steps.reverse()) {
      try {
        await c();
      } catch {
        // Best effort: the original error is what the user needs to see.
      }
    }
  }
}
