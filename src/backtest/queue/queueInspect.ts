/**
 * `kancil backtest … --queue URL --status` and `--cancel`: what the queue holds of one sweep (its
 * jobs found by their ids, as a re-gather finds them), and cancelling the jobs no worker has
 * started. A running job is not interrupted (its worker holds its lock): it finishes, and its
 * result stays in the queue like any other.
 */
import type { Queue } from 'bullmq';

/** What `--status` or `--cancel` does. */
export type QueueAction = 'status' | 'cancel';

/** BullMQ states of a job that no worker has started: a cancel removes these. */
const NOT_STARTED: ReadonlySet<string> = new Set(['waiting', 'prioritized', 'delayed', 'waiting-children']);

/** Words for each state, in the order a status lists them. */
const STATE_WORDS: readonly (readonly [string, string])[] = [
  ['completed', 'finished'],
  ['failed', 'failed'],
  ['active', 'running'],
  ['waiting', 'waiting'],
  ['prioritized', 'waiting'],
  ['delayed', 'waiting to retry or handed back'],
  ['waiting-children', 'waiting'],
  ['unknown', 'not in the queue'],
];

/** The sweep's jobs counted by state (`states`: id and state of each), one sentence. */
export function statusText(display: string, states: readonly (readonly [string, string])[]): string {
  const counts = new Map<string, number>();
  for (const [, state] of states) {
    const word = STATE_WORDS.find(([s]) => s === state)?.[1] ?? state;
    counts.set(word, (counts.get(word) ?? 0) + 1);
  }
  const parts = [...new Set([...STATE_WORDS.map(([, w]) => w), ...counts.keys()])].flatMap((w) => (counts.has(w) ? [`${counts.get(w)} ${w}`] : []));
  return `queue ${display}: this sweep has ${states.length} job${states.length === 1 ? '' : 's'}: ${parts.join(', ')}`;
}

/** Does `action` on the sweep's jobs and says what it found and did. */
export async function inspectJobs(queue: Pick<Queue, 'remove'>, states: readonly (readonly [string, string])[], action: QueueAction, display: string, markCancelled: (ids: string[]) => Promise<unknown>): Promise<string> {
  const status = statusText(display, states);
  switch (action) {
    case 'status':
      return status;
    case 'cancel': {
      // Marked first: a command still waiting for the sweep then answers these as cancelled instead of adding them again.
      await markCancelled(states.filter(([, s]) => NOT_STARTED.has(s)).map(([id]) => id));
      let removed = 0;
      // remove() refuses a job a worker has just locked: it then runs, and is counted as running.
      for (const [id, state] of states) if (NOT_STARTED.has(state)) removed += await queue.remove(id);
      const running = states.filter(([, s]) => s === 'active').length;
      return `${status}\ncancelled ${removed} job${removed === 1 ? '' : 's'} no worker had started${running > 0 ? `; ${running} running finish (their results stay in the queue)` : ''}`;
    }
    default: {
      const never: never = action;
      throw new RangeError(`unknown queue action ${String(never)}`);
    }
  }
}
