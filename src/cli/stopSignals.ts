/**
 * SIGINT and SIGTERM for a command that stops gracefully (a run cancelling its orders, a recorder
 * flushing its files). The first asks it to stop. The same signal often arrives twice within
 * milliseconds — `timeout` and systemd send it to the process and to its whole group, and an
 * operator may press Ctrl-C twice — and with no listener left the second would kill the process
 * half-way through its stop (exit 130, orders still resting). So a repeat within
 * {@link REPEAT_GRACE_MS} of the first is ignored; one after that is a deliberate second request
 * and `onRepeat` decides (by default: end the process at once with 128 + the signal's number, as
 * Node would have).
 */
import { constants } from 'node:os';

/** Repeats closer than this to the first signal are the same request. */
export const REPEAT_GRACE_MS = 1000;

/** Something with signal listeners, as `process` is. */
export interface SignalSource {
  on(event: NodeJS.Signals, listener: (sig: NodeJS.Signals) => void): unknown;
  off(event: NodeJS.Signals, listener: (sig: NodeJS.Signals) => void): unknown;
}

/** Options of {@link onStopSignals}. */
export interface StopSignalOptions {
  /** A deliberate repeat (later than the grace); default: exit with 128 + its number. */
  readonly onRepeat?: (sig: NodeJS.Signals, count: number) => void;
  readonly now?: () => number;
  readonly source?: SignalSource;
}

/** Calls `first` on the first SIGINT/SIGTERM and handles the repeats (see the module comment); returns the function that removes the listeners. */
export function onStopSignals(first: (sig: NodeJS.Signals) => void, o: StopSignalOptions = {}): () => void {
  const now = o.now ?? Date.now;
  const source = o.source ?? process;
  const onRepeat = o.onRepeat ?? ((sig: NodeJS.Signals): void => process.exit(128 + (constants.signals[sig] ?? 0)));
  let firstAt: number | undefined;
  let repeats = 0;
  const listener = (sig: NodeJS.Signals): void => {
    const t = now();
    if (firstAt === undefined) {
      firstAt = t;
      first(sig);
      return;
    }
    if (t - firstAt < REPEAT_GRACE_MS) return;
    onRepeat(sig, ++repeats);
  };
  source.on('SIGINT', listener);
  source.on('SIGTERM', listener);
  return () => {
    source.off('SIGINT', listener);
    source.off('SIGTERM', listener);
  };
}
