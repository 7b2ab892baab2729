/**
 * `kancil worker --queue redis://host:port[/db] [--concurrency N]`
 *
 * Runs the jobs of queue sweeps (`kancil backtest --sweep grid.yaml --queue ...`) on this machine
 * until stopped: SIGINT or SIGTERM lets the running jobs finish, a second one puts them back in
 * the queue and stops at once. A command module is CLI edge code; the worker is in backtest/queue.
 */
import type { Command, CliIO } from './command.js';
import { ExitCode } from './command.js';
import { intOption, parseCommandArgs } from './args.js';
import { MAX_TIMER_MS } from '../core/longTimer.js';
import { addSecretValues } from '../core/secretScrub.js';
import { checkReachable } from '../backtest/queue/connection.js';
import { engineId } from '../backtest/queue/engineHash.js';
import { startQueueWorker } from '../backtest/queue/queueWorker.js';
import { passwordWarning, redactRedisUrls, REDIS_URL_ENV, resolveRedisTarget } from '../backtest/queue/redisUrl.js';

const USAGE = `Usage: kancil worker [--queue redis://host[:port][/db]] [options]

Runs the jobs of queue sweeps (kancil backtest --sweep grid.yaml --queue URL) on this machine, on
worker threads, until SIGINT/SIGTERM (the running jobs finish; a second signal puts them back in
the queue). Start as many workers, on as many machines, as you like. Each needs the config's data,
latency and strategy files at the same paths as the machine that enqueued the sweep, and the same
build of kancil; a job it cannot run (another build, a file missing or different) is handed back
to the queue for another worker, and the reason is logged once.

Options:
  --queue URL        the Redis holding the queue (rediss:// for TLS); default KANCIL_REDIS_URL.
                     Its password: in KANCIL_REDIS_URL, or the first line of the file named by
                     KANCIL_REDIS_PASSWORD_FILE (on the command line, ps shows it to everyone)
  --concurrency N    jobs run at once, each on its own thread (default 1)
  --lock-ms N        a job's lock: a worker that dies frees its job after this (default 30000)
  --stalled-ms N     how often this worker looks for jobs of dead workers (default 30000)
  -h, --help         this text`;

async function run(argv: readonly string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, { queue: { type: 'string' }, concurrency: { type: 'string' }, 'lock-ms': { type: 'string' }, 'stalled-ms': { type: 'string' }, help: { type: 'boolean', short: 'h' } });
  // Bad values are ValidationErrors: main prints them with the usage and exits 2.
  const target = resolveRedisTarget(values.queue, io.env);
  // However it was given (URL, environment, file), the password is scrubbed from all output.
  addSecretValues([target?.password]);
  if (positionals.length > 0 || target === undefined) {
    io.stderr(`${target === undefined ? `--queue is required (or ${REDIS_URL_ENV} in the environment)` : `unexpected argument ${JSON.stringify(redactRedisUrls(positionals[0] ?? ''))}`}\n\n${USAGE}\n`);
    return ExitCode.USAGE;
  }
  const concurrency = intOption('concurrency', values.concurrency, 1);
  const lockMs = intOption('lock-ms', values['lock-ms'], 30_000, MAX_TIMER_MS);
  const stalledMs = intOption('stalled-ms', values['stalled-ms'], 30_000, MAX_TIMER_MS);
  await checkReachable(target);
  const log = (line: string): void => io.stderr(`${new Date().toISOString()} ${line}\n`);
  const warning = passwordWarning(target);
  if (warning !== undefined) log(`warning: ${warning}`);
  const worker = startQueueWorker({ target, engine: engineId(), concurrency, lockMs, stalledMs, log });
  await new Promise<void>((resolve) => {
    let signals = 0;
    const stop = (signal: NodeJS.Signals): void => {
      signals++;
      if (signals === 1) {
        log(`${signal}: finishing the running jobs (send it again to put them back in the queue and stop now)`);
        void worker.close().then(resolve, resolve);
      } else if (signals === 2) {
        log(`${signal}: putting the running jobs back in the queue`);
        void worker.release().then(resolve, resolve);
      }
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
  log('worker stopped');
  return ExitCode.OK;
}

/** The `worker` command. */
export const command: Command = { usage: USAGE, run };
