/**
 * Everything a child process writes to stdout and stderr, kept whole, and its end once both pipes
 * have closed: at `exit` bytes may still sit in the pipes, and a test that reads the output then
 * misses the last lines (a flake when it looks for a stop line, a hole when it checks that
 * something was never printed).
 */
import type { ChildProcess } from 'node:child_process';

/** How a child ended. */
export interface ChildEnd {
  /** The exit code; null when a signal killed it. */
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

/** The output of a child, read until its pipes close. */
export interface ChildOutput {
  stdout(): string;
  stderr(): string;
  /** Both, in the order the chunks arrived. */
  both(): string;
  /** Calls `fn` with each chunk from now on (either pipe); returns the unsubscribe. */
  onChunk(fn: (text: string) => void): () => void;
  /**
   * Resolves once the child exited and both pipes closed, so every byte is in; rejects when the
   * pipes stay open `graceMs` after the exit (a process it started holds them), naming that.
   */
  readonly closed: Promise<ChildEnd>;
}

/** How long the pipes may stay open after the exit; they close at once unless a grandchild holds them. */
export const PIPE_GRACE_MS = 10_000;

/** Starts keeping the output of `child` (spawned with stdout and stderr piped); `what` names it in errors. */
export function childOutput(child: ChildProcess, what: string, graceMs = PIPE_GRACE_MS): ChildOutput {
  let out = '';
  let err = '';
  let both = '';
  const subscribers = new Set<(text: string) => void>();
  const take = (into: (text: string) => void) => (text: string): void => {
    into(text);
    both += text;
    for (const s of subscribers) s(text);
  };
  // Decoded as a stream: a UTF-8 character cut between two chunks is joined, not replaced.
  child.stdout?.setEncoding('utf8').on('data', take((t) => (out += t)));
  child.stderr?.setEncoding('utf8').on('data', take((t) => (err += t)));
  const closed = new Promise<ChildEnd>((resolve, reject) => {
    let late: Error | undefined;
    let timer: NodeJS.Timeout | undefined;
    child.once('exit', (code, signal) => {
      timer = setTimeout(() => {
        late = new Error(`${what} ended (${code === null ? `killed by ${signal}` : `exit ${code}`}) but its stdout/stderr stayed open ${graceMs} ms after: a process it started holds them, so its output may be incomplete`);
        child.stdout?.destroy();
        child.stderr?.destroy();
      }, graceMs);
    });
    child.once('close', (code: number | null, signal: NodeJS.Signals | null) => {
      clearTimeout(timer);
      if (late === undefined) resolve({ code, signal });
      else reject(late);
    });
  });
  const onChunk = (fn: (text: string) => void): (() => void) => {
    subscribers.add(fn);
    return () => subscribers.delete(fn);
  };
  return { stdout: () => out, stderr: () => err, both: () => both, onChunk, closed };
}
