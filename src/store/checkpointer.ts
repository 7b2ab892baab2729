/**
 * Moves the ledger's WAL into its database file from a worker thread. SQLite's automatic
 * checkpoint runs inside the commit that crosses 1,000 WAL pages (about every 40 orders: each
 * order's journal is four commits), on the thread that wrote it, and it syncs the files there:
 * fsyncs of 5 ms at the median and up to 0.5 s were measured at load 15, inside the journal write
 * that comes before an order is sent. With this worker the run's own connection never
 * checkpoints; durability is unchanged (synchronous=NORMAL: a commit is in the WAL before the
 * caller acts on it).
 */
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/** How often the worker checkpoints (ms). */
export const CHECKPOINT_INTERVAL_MS = 500;

/** What the worker runs (CommonJS, so it needs no loader for TypeScript). */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
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
const timer = setInterval(() => {
  try {
    db.pragma('wal_checkpoint(PASSIVE)');
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
export function startCheckpointer(path: string, onFailure: (why: string) => void, intervalMs = CHECKPOINT_INTERVAL_MS): Checkpointer {
  const sqlite = createRequire(import.meta.url).resolve('better-sqlite3');
  // Set to 1 by the worker once its connection is closed (stop() waits on it).
  const state = new SharedArrayBuffer(4);
  const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { path, sqlite, intervalMs, state } });
  worker.unref();
  let failed = false;
  let stopped = false;
  const fail = (why: string): void => {
    if (failed || stopped) return;
    failed = true;
    worker.postMessage('stop');
    onFailure(why);
  };
  worker.on('message', (m: unknown) => fail(`checkpoint failed: ${String(m)}`));
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
