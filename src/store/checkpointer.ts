/**
 * Moves the ledger's WAL into its database file from a worker thread. SQLite's automatic
 * checkpoint runs inside the commit that crosses 1,000 WAL pages (about every 40 orders: each
 * order's journal is four commits), on the thread that wrote it, and it syncs the files there:
 * fsyncs of 5 ms at the median and up to 0.5 s were measured at load 15, inside the journal write
 * that comes before an order is sent. With this worker the run's own connection never
 * checkpoints; durability is unchanged (synchronous=NORMAL: a commit is in the WAL before the
 * caller acts on it).
 *
 * A PASSIVE checkpoint never makes the WAL start over while orders keep coming: SQLite rewinds the
 * log only when a writer starts with every frame already copied, and a commit nearly always lands
 * during the pass's two fsyncs, so the file grew without limit (1.3 GB after 16 s at 1,000
 * orders/s; each order appends ~100 KB). So once the file passes a cap the worker runs a RESTART
 * checkpoint: it waits for the writer, holds new writers off while it copies the rest, and the
 * next commit rewinds the log (the ledger's journal_size_limit then cuts the file back to the
 * cap). The run's connection has busy_timeout 5000, so its commits wait out that pass rather than
 * fail: one pause per cap of WAL (6-9 ms measured for a 64 MiB cap, the copy of what came in
 * during the PASSIVE pass and one fsync), i.e. every ~0.7 s at 1,000 orders/s, about once a
 * minute at 10/s.
 */
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { type WalRestartProbe, walRestarted } from '../core/probes.js';

/** How often the worker checkpoints (ms). */
export const CHECKPOINT_INTERVAL_MS = 500;

/** WAL file size (bytes) past which the worker makes the log start over (RESTART checkpoint). */
export const WAL_CAP_BYTES = 64 * 1024 * 1024;

/** Options of {@link startCheckpointer}. */
export interface CheckpointerOptions {
  /** How often the worker checkpoints (ms); {@link CHECKPOINT_INTERVAL_MS} by default. */
  readonly intervalMs?: number;
  /** WAL size (bytes) past which the log is made to start over; {@link WAL_CAP_BYTES} by default. */
  readonly walCapBytes?: number;
}

/** What the worker runs (CommonJS, so it needs no loader for TypeScript). */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { statSync } = require('node:fs');
const Database = require(workerData.sqlite);
const state = new Int32Array(workerData.state);
const closed = () => {
  Atomics.store(state, 0, 1);
  Atomics.notify(state, 0);
};
let db;
try {
  db = new Database(workerData.path, { timeout: 5000 });
} catch (err) {
  closed();
  throw err;
}
const walSize = () => {
  try {
    return statSync(workerData.path + '-wal').size;
  } catch {
    return 0;
  }
};
const timer = setInterval(() => {
  try {
    db.pragma('wal_checkpoint(PASSIVE)');
    // A commit that landed during the pass left frames uncopied, so the next writer appends
    // instead of rewinding the log: past the cap, copy the rest with writers held off.
    if (walSize() > workerData.walCapBytes) {
      const start = performance.timeOrigin + performance.now();
      db.pragma('wal_checkpoint(RESTART)');
      parentPort.postMessage({ restart: [start, performance.timeOrigin + performance.now()] });
    }
  } catch (err) {
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
  // Set to 1 by the worker once its connection is closed (stop() waits on it).
  const state = new SharedArrayBuffer(4);
  const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { path, sqlite, intervalMs, walCapBytes, state } });
  worker.unref();
  let failed = false;
  let stopped = false;
  const fail = (why: string): void => {
    if (failed || stopped) return;
    failed = true;
    worker.postMessage('stop');
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
      worker.postMessage('stop');
      Atomics.wait(new Int32Array(state), 0, 0, STOP_WAIT_MS);
    },
  };
}
