/**
 * What the CLI does when the reader of its stdout or stderr goes away (`kancil orders | head -1`):
 * it stops quietly, as coreutils do, instead of printing an EPIPE stack. A command that must not
 * stop abruptly (`kancil run`, whose orders rest on an exchange) registers a handler and stops
 * gracefully instead; everything it still writes to the closed stream is dropped.
 */

/** The exit status of a command its closed output stopped: what a shell reports for a SIGPIPE death (128 + 13). */
export const CLOSED_PIPE_EXIT = 141;

/** The standard streams the guard watches. */
export type StdStream = 'stdout' | 'stderr';

/** Something with an `error` event, as process.stdout and process.stderr are. */
export interface ErrorEmitter {
  on(event: 'error', listener: (err: Error) => void): unknown;
}

const closed = new Set<StdStream>();
let graceful: ((stream: StdStream) => void) | undefined;

/** True once `stream` has failed a write (its reader is gone): writes to it are then dropped. */
export function isClosed(stream: StdStream): boolean {
  return closed.has(stream);
}

/**
 * Replaces the default (exit) with `handler` while a command that must stop gracefully runs; the
 * returned function restores the default. The handler is called once per closed stream.
 */
export function onClosedPipe(handler: (stream: StdStream) => void): () => void {
  graceful = handler;
  return () => {
    if (graceful === handler) graceful = undefined;
  };
}

/**
 * Watches `streams` for a write error (EPIPE, or any other: the stream can take no more output):
 * marks it closed, then calls the graceful handler if one is registered, else `exit` with
 * {@link CLOSED_PIPE_EXIT}. Without a listener Node would throw the error with its stack.
 */
export function guardStdio(streams: Readonly<Record<StdStream, ErrorEmitter>>, exit: (code: number) => void): void {
  for (const name of ['stdout', 'stderr'] as const) {
    streams[name].on('error', () => {
      if (closed.has(name)) return;
      closed.add(name);
      if (graceful) graceful(name);
      else exit(CLOSED_PIPE_EXIT);
    });
  }
}

/** Forgets closed streams and handlers (tests). */
export function resetClosedPipes(): void {
  closed.clear();
  graceful = undefined;
}
