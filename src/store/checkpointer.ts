/**
 * Moves the ledger's WAL into its database file from a worker thread. SQLite's automatic
 * checkpoint runs inside the commit that crosses 1,000 WAL pages (about every 65 orders: an IOC
 * order's journal is four commits, 15 pages: the gate's verdict with the PENDING order, sentAt,
 * and one for each of its two reports), on the thread that wrote it, and it syncs the files
 * there: fsyncs of 5 ms at the median and up to 0.5 s were measured at load 15, inside the
 * journal write that comes before an order is sent. With this worker the run's own connection
 * never checkpoints; durability is unchanged (synchronous=NORMAL: a commit is in the WAL before
 * the caller acts on it).
 *
 * A PASSIVE checkpoint holds no lock a writer needs, but it never makes the WAL start over while
 * orders keep coming: SQLite rewinds the log only when a writer starts with every frame already
 * copied, and a commit nearly always lands during the pass's fsync, so the file grew without limit
 * (1.3 GB after 16 s at 1,000 orders/s). So once the log holds more than a cap the worker runs a
 * RESTART checkpoint: it takes the write lock, copies what is left, syncs the log and the database
 * file and then needs every reader gone; the next commit rewinds the log. The file keeps its size
 * up to WAL_FILE_LIMIT_BYTES (cutting it back is the rewinding commit's work, on the run's thread),
 * so the cap counts the log's frames, not the file's bytes. The run's commits wait for that lock
 * (busy_timeout 5000), so what the worker does while holding it is kept short:
 * - its connection has no busy timeout: SQLite would otherwise sleep, lock held, until a reader
 *   (another process reading the ledger) let go, up to the same 5 s, and the run's commit failed;
 *   a RESTART that meets a reader, or the run mid-commit, returns busy and is tried again;
 * - before it, PASSIVE passes run until one copies few frames, so the RESTART copies and syncs
 *   only what came in during that last short pass (in a micro-driver committing back to back,
 *   ~5,000 orders/s, holds of 76-156 ms, mostly the log's fsync, became 5-36 ms);
 * - a lock another connection holds when a pass starts (SQLITE_BUSY) skips that tick; any other
 *   error ends the worker and the run's commits checkpoint again.
 * A reader that keeps one snapshot for long still keeps the log from rewinding until it ends.
 */
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { type WalRestartProbe, walRestarted } from '../core/probes.js';

/** How often the worker checkpoints (ms). */
export const CHECKPOINT_INTERVAL_MS = 500;

/** WAL content (bytes of frames since the log last started over) past which the worker makes it start over (RESTART). */
export const WAL_CAP_BYTES = 64 * 1024 * 1024;

/**
 * The largest WAL file the ledger keeps on disk once the log starts over (its journal_size_limit).
 * Above the high-water a steady order rate reaches past the cap, so in a steady run the commit that
 * rewinds the log never cuts the file on the run's thread: an ftruncate of ~130 MiB there took
 * 12-69 ms, inside that order's journal.
 */
export const WAL_FILE_LIMIT_BYTES = 4 * WAL_CAP_BYTES;

/** Options of {@link startCheckpointer}. */
export interface CheckpointerOptions {
  /** How often the worker checkpoints (ms); {@link CHECKPOINT_INTERVAL_MS} by default. */
  readonly intervalMs?: number;
  /** WAL content (bytes) past which the log is made to start over; {@link WAL_CAP_BYTES} by default. */
  readonly walCapBytes?: number;
}

/** Frames (pages) a PASSIVE pass may copy and still count as having caught up with the writer. */
const FEW_FRAMES = 256;

/** PASSIVE passes a tick runs past the cap before its RESTART, whether or not they catch up. */
const MAX_PASSES = 4;

/**
 * RESTART attempts a tick makes past the cap, a millisecond apart: one that finds the run
 * mid-commit runs as a PASSIVE pass instead (a run that commits back to back leaves the lock free
 * only between its commits).
 */
const RESTART_TRIES = 40;

/** What the worker runs (CommonJS, so it needs no loader for TypeScript). */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.sqlite);
const state = new Int32Array(workerData.state);
const { walCapBytes, fewFrames, maxPasses, restartTries } = workerData;
const closed = () => {
  Atomics.store(state, 0, 1);
  Atomics.notify(state, 0);
};
let db;
try {
  // No busy timeout: a RESTART sleeps out a reader's lock while it holds the run's writers off.
  db = new Database(workerData.path, { timeout: 0 });
} catch (err) {
  closed();
  throw err;
}
const pageSize = db.pragma('page_size', { simple: true });
const stopping = () => Atomics.load(state, 1) === 1;
const pause = new Int32Array(new SharedArrayBuffer(4));
const now = () => performance.timeOrigin + performance.now();
let backfilled = 0;
// The log's frames at the last RESTART that finished (-1: none yet).
let restarted = -1;
// One checkpoint: whether it left work undone (busy), and how many frames it copied.
const checkpoint = (mode) => {
  const r = db.pragma('wal_checkpoint(' + mode + ')')[0];
  const done = Math.max(0, r.checkpointed);
  // A count below the last one: the log started over since.
  const copied = done >= backfilled ? done - backfilled : done;
  backfilled = done;
  return { busy: r.busy !== 0, copied, pinned: done < r.log, frames: r.log };
};
const tick = () => {
  let { copied, frames } = checkpoint('PASSIVE');
  // What the log holds since it last started over, not the file's size: the file keeps its
  // high-water size (see journal_size_limit in Ledger.ts), and a RESTART of a log that holds
  // little would hold the run's writers for nothing.
  if (frames * pageSize <= walCapBytes) return;
  // Nothing written since the last RESTART: the log starts over at the next commit already.
  if (frames === restarted) return;
  // A commit that landed during the pass left frames uncopied, so the next writer appends instead
  // of rewinding the log. A RESTART copies them with the run's writers held off and syncs both
  // files: first let passes that hold nothing copy until one finds little left.
  for (let i = 0; i < maxPasses && copied > fewFrames && !stopping(); i++) copied = checkpoint('PASSIVE').copied;
  const start = now();
  for (let i = 0; i < restartTries && !stopping(); i++) {
    // Busy: the run was mid-commit (SQLite ran a PASSIVE pass instead), or a reader still uses
    // the log; frames left uncopied mean a reader's snapshot needs them: no use trying again now.
    const r = checkpoint('RESTART');
    if (!r.busy) restarted = r.frames;
    if (!r.busy || r.pinned) break;
    Atomics.wait(pause, 0, 0, 1);
  }
  parentPort.postMessage({ restart: [start, now()] });
};
const timer = setInterval(() => {
  try {
    tick();
  } catch (err) {
    // A lock another connection holds this instant: the next tick tries again.
    if (/^SQLITE_BUSY/.test(String(err && err.code))) return;
    parentPort.postMessage(String(err && err.message ? err.message : err));
  }
}, workerData.intervalMs);
parentPort.on('message', () => {
  clearInterval(timer);
  try {
    db.close();
  } finally {
    closed();
    parentPort.close();
  }
});
`;

/** Longest wait in {@link Checkpointer.stop} for the worker to close its connection. */
const STOP_WAIT_MS = 5000;

/** A running checkpoint worker. */
export interface Checkpointer {
  /**
   * Ends the worker and waits (blocking, at most 5 s) until its connection is closed, so the
   * ledger's files are settled when the caller closes its own.
   */
  stop(): void;
}

/**
 * Starts the worker on the ledger at `path`. `onFailure` is called once if the worker cannot
 * open the ledger, reports an error or ends on its own: the caller then lets SQLite checkpoint
 * in its commits again, so the WAL never grows without bound.
 */
export function startCheckpointer(path: string, onFailure: (why: string) => void, options: CheckpointerOptions = {}): Checkpointer {
  const intervalMs = options.intervalMs ?? CHECKPOINT_INTERVAL_MS;
  const walCapBytes = options.walCapBytes ?? WAL_CAP_BYTES;
  const sqlite = createRequire(import.meta.url).resolve('better-sqlite3');
  // [0]: set to 1 by the worker once its connection is closed (stop() waits on it); [1]: set to 1
  // by stop(), so a tick's loop of passes ends early.
  const state = new SharedArrayBuffer(8);
  const workerData = { path, sqlite, intervalMs, walCapBytes, state, fewFrames: FEW_FRAMES, maxPasses: MAX_PASSES, restartTries: RESTART_TRIES };
  const worker = new Worker(WORKER_SOURCE, { eval: true, workerData });
  worker.unref();
  let failed = false;
  let stopped = false;
  const halt = (): void => {
    Atomics.store(new Int32Array(state), 1, 1);
    worker.postMessage('stop');
  };
  const fail = (why: string): void => {
    if (failed || stopped) return;
    failed = true;
    halt();
    onFailure(why);
  };
  worker.on('message', (m: unknown) => {
    const restart = (m as { restart?: unknown } | null)?.restart;
    if (!Array.isArray(restart)) fail(`checkpoint failed: ${String(m)}`);
    else if (walRestarted.hasSubscribers) walRestarted.publish({ start: (restart[0] as number) - performance.timeOrigin, end: (restart[1] as number) - performance.timeOrigin } satisfies WalRestartProbe);
  });
  worker.on('error', (err) => fail(err.message));
  worker.on('exit', (code) => fail(`checkpoint worker ended (exit ${code})`));
  return {
    stop() {
      if (stopped) return;
      stopped = true;
      halt();
      Atomics.wait(new Int32Array(state), 0, 0, STOP_WAIT_MS);
    },
  };
}
