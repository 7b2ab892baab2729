/**
 * `kancil backtest --sweep`: runs the grid (on worker threads, or a queue's workers), writes
 * sweep.md / sweep.json / sweep.html and prints the table. SIGINT/SIGTERM cut it short: the first
 * starts no new point and lets the running ones finish, a deliberate second (stopSignals.ts)
 * abandons them; the finished points are written, marked as interrupted, and the exit is 130. On a
 * queue, the first stops waiting only: the jobs keep running on the workers, to be gathered later.
 */
import type { CliIO } from './command.js';
import { ExitCode } from './command.js';
import { onStopSignals } from './stopSignals.js';
import type { BacktestConfig } from '../backtest/config.js';
import type { RedisTarget } from '../backtest/queue/redisUrl.js';
import type { SweepResult } from '../backtest/sweep.js';

/** The command line of a sweep, as parsed. */
export interface SweepArgs {
  readonly sweep: string;
  readonly workers: number | undefined;
  readonly target: RedisTarget | undefined;
  readonly gather: boolean;
  readonly status: boolean;
  readonly cancel: boolean;
  readonly json: boolean;
  readonly quiet: boolean;
}

/** Stops and abandons a sweep on SIGINT/SIGTERM (see the module comment); `off` removes the listeners. */
function sweepSignals(io: CliIO, onFirst: () => void): { stop: AbortController; abandon: AbortController; off: () => void } {
  const stop = new AbortController();
  const abandon = new AbortController();
  const off = onStopSignals(
    () => {
      io.stderr('sweep interrupted: no new points start, running points finish (signal again after 1 s to abandon them)\n');
      stop.abort();
      onFirst();
    },
    {
      onRepeat: (sig, count) => {
        if (count > 1) process.exit(ExitCode.INTERRUPTED);
        io.stderr(`sweep: ${sig} again: abandoning the running points\n`);
        abandon.abort();
      },
    },
  );
  return { stop, abandon, off };
}

/** Runs the sweep and writes its reports; resolves to the exit code. */
export async function runSweepCommand(cfg: BacktestConfig, out: string, a: SweepArgs, io: CliIO): Promise<number> {
  // The sweep's modules (grid, pool, reports) load only for a sweep, not at every backtest's start.
  const [{ loadGrid }, { runSweep, sweepTable, writeSweep }] = await Promise.all([import('../backtest/sweepGrid.js'), import('../backtest/sweep.js')]);
  const grid = loadGrid(a.sweep);
  // BullMQ and ioredis (~230 modules) load only for a queue sweep, not at every backtest's start.
  const q = a.target === undefined ? undefined : { target: a.target, connection: await import('../backtest/queue/connection.js'), sweep: await import('../backtest/queue/queueSweep.js') };
  if (q !== undefined) await q.connection.checkReachable(q.target);
  const action = a.status ? 'status' : a.cancel ? 'cancel' : undefined;
  const queue = q === undefined ? undefined : q.sweep.queueSweep(cfg, { target: q.target, gatherOnly: a.gather, ...(action !== undefined ? { action } : {}), log: (line) => io.stderr(`${line}\n`) });
  if (queue !== undefined && action !== undefined) {
    // The sweep's jobs are found as a re-gather finds them; its report is not written.
    try {
      await runSweep(cfg, grid, { gridFile: a.sweep, runner: queue.runner });
    } finally {
      await queue.close();
    }
    io.stdout(`${queue.status()}\n`);
    return ExitCode.OK;
  }
  // On a queue the first signal ends the wait (the jobs are the workers'); here it resolves `waitCut`.
  let cutWait: () => void = () => undefined;
  const waitCut = new Promise<'cut'>((resolve) => (cutWait = () => resolve('cut')));
  const signals = sweepSignals(io, () => queue !== undefined && cutWait());
  let s: SweepResult | 'cut';
  try {
    const running = runSweep(cfg, grid, { workers: a.workers, gridFile: a.sweep, onDone: a.quiet ? undefined : (d, t) => io.stderr(`sweep ${d}/${t}\n`), signals: { stop: signals.stop.signal, abandon: signals.abandon.signal }, ...(queue !== undefined ? { runner: queue.runner } : {}) });
    // The queue's wait, cut short, may still reject when its connection closes: nothing waits for it then.
    running.catch(() => undefined);
    s = await Promise.race([running, waitCut]);
  } finally {
    signals.off();
    await queue?.close();
  }
  if (s === 'cut') {
    io.stderr('sweep: stopped waiting; its jobs keep running on the workers (nothing was cancelled). Run the same command with --gather to collect them when they are done.\n');
    return ExitCode.INTERRUPTED;
  }
  const files = writeSweep(out, s);
  io.stdout(a.json ? `${JSON.stringify(s.rows)}\n` : `${sweepTable(s)}\nwrote ${files.md}, ${files.json} and ${files.html}\n`);
  if (s.interrupted !== undefined) {
    io.stderr(`sweep ${s.interrupted}\n`);
    return ExitCode.INTERRUPTED;
  }
  // The other points' results are written; the exit code still says that some failed.
  if (s.failed > 0) {
    io.stderr(`sweep: ${s.failed} of ${s.rows.length} points failed:\n${s.rows.flatMap((r) => (r.error !== undefined ? [`  point ${r.index} ${JSON.stringify(r.params)}: ${r.error}`] : [])).join('\n')}\n`);
    return ExitCode.FAILED;
  }
  return ExitCode.OK;
}
