/**
 * `kancil backtest <config.yaml> [--sweep <grid.yaml>] [--out <dir>] [--json] [--quiet]`
 *
 * Replays the config's recordings (or kline files) through the strategy host, risk gate and
 * simulated venue; prints a summary and writes result.json and report.html (to --out, or the
 * config's backtest.output). With --sweep, runs the grid on all cores and writes sweep.md/json.
 * A command module is CLI edge code, so it lives in src/cli (backtest never imports cli).
 */
import { closeSync, openSync, readSync } from 'node:fs';
import path from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import { parseArgs } from 'node:util';
import type { Command, CliIO } from './command.js';
import { ExitCode } from './command.js';
import { outputDirProblem } from './outputDir.js';
import { createLogger } from '../config/logger.js';
import { setReplayFlags } from './replayFlags.js';
import { ConfigError, KancilError, ValidationError } from '../core/errors.js';
import { checkDataFiles, runBacktest, writeReports } from '../backtest/Backtest.js';
import { loadBacktestConfig } from '../backtest/config.js';
import { type ProgressState, createProgress, totalBytes } from '../backtest/progress.js';
import { streamsOf } from '../backtest/resultStreams.js';
import { runSweepCommand } from './backtestSweep.js';
import { onStopSignals } from './stopSignals.js';
import type { RedisTarget } from '../backtest/queue/redisUrl.js';
import { queueTarget } from './queueOptions.js';
import { rerun } from './rerun.js';
import { summary } from './backtestSummary.js';
import { failureText } from '../backtest/failureText.js';

const USAGE = `Usage: kancil backtest <config.yaml> [options]
       kancil backtest --rerun <result.json> [--out DIR]

Replays recorded market data (or kline files) through the strategies, the risk checker and the
simulated venue on a virtual clock, and writes result.json and a self-contained report.html.

Options:
  --sweep FILE   run a parameter grid (YAML: lists, ranges, random search, an out-of-sample
                 split; see config/sma-crossover.grid.yaml) on all cores and write a ranked
                 table (sweep.md, sweep.json) and sweep.html (sortable table, heatmap)
  --out DIR      output folder (default: backtest.output of the config, else reports/<name>)
  --workers N    sweep worker threads (default: all cores)
  --queue URL    run the sweep's jobs on \`kancil worker\` processes on any number of machines,
                 through the Redis at URL (redis://host[:port][/db]; its password from
                 KANCIL_REDIS_URL or the file named by KANCIL_REDIS_PASSWORD_FILE): enqueues them
                 (each once: a job already there is found, a finished one not run again), waits,
                 and writes the same reports. Re-running the command re-gathers a finished sweep
                 (results are kept 7 days)
  --gather       with --queue: enqueue nothing, report what the queue holds for this sweep
  --status       with --queue: print how many of this sweep's jobs are finished, running,
                 waiting; enqueue, wait for and write nothing
  --cancel       with --queue: remove this sweep's jobs no worker has started (running ones
                 finish) and print what was there
  --rerun FILE   repeat the run a result.json records (its config as run, inputs and their
                 SHA-256, code version) and say whether the new result.json is byte-identical;
                 exit 1 when it is not, naming the fields and the inputs or code that changed
  Ctrl-C (SIGINT/SIGTERM) during a sweep: no new point starts, the running ones finish (again
                 after 1 s: abandoned), and the finished points are written, marked interrupted;
                 exit 130. On a queue it stops the waiting only. A single run writes nothing.
  --json         print the result JSON (what result.json holds) instead of a summary
  --quiet        no progress output
  -h, --help     this text`;

/**
 * Prints result.json as written, a piece at a time: a day's result as one string (what
 * JSON.stringify of it would build) costs tens of MB and rebuilds every spooled list.
 */
function copyToStdout(file: string, io: CliIO): void {
  const fd = openSync(file, 'r');
  try {
    const buf = Buffer.allocUnsafe(1 << 20);
    const text = new StringDecoder('utf8');
    for (let n = readSync(fd, buf); n > 0; n = readSync(fd, buf)) io.stdout(text.write(buf.subarray(0, n)));
    io.stdout(text.end());
  } finally {
    closeSync(fd);
  }
}

/** An error as the user reads it: ours and range errors by their message, a bug with its stack. */
function failureOf(err: unknown): string {
  return err instanceof KancilError || err instanceof RangeError ? err.message : err instanceof Error ? (err.stack ?? err.message) : String(err);
}

/**
 * The exit code of an error that ends the command, printed. Every command's rule (README "Exit
 * codes"): a bad argument or config, named by its field and value, is 2 (with the usage when it is
 * an argument), even where only the data shows it; whatever else failed is 1.
 */
function failed(err: unknown, what: string, io: CliIO): number {
  if (err instanceof ValidationError || err instanceof ConfigError) {
    io.stderr(`kancil backtest: ${err.message}\n${err instanceof ValidationError ? `\n${USAGE}\n` : ''}`);
    return ExitCode.USAGE;
  }
  io.stderr(`${what} failed: ${failureOf(err)}\n`);
  return ExitCode.FAILED;
}

/** `--rerun FILE [--out DIR]`: nothing else may come with it (the config is in the file). */
async function rerunOf(file: string, withOthers: boolean, out: string | undefined, io: CliIO): Promise<number> {
  if (withOthers) {
    io.stderr(`--rerun takes the result.json alone (its config is in it)\n\n${USAGE}\n`);
    return ExitCode.USAGE;
  }
  try {
    const problem = out === undefined ? undefined : outputDirProblem(out);
    if (problem !== undefined) throw new ValidationError('--out', out, problem);
    return await rerun(file, out === undefined ? undefined : path.resolve(out), io);
  } catch (err) {
    return failed(err, 'backtest --rerun', io);
  }
}

async function run(argv: readonly string[], io: CliIO): Promise<number> {
  let values: { sweep?: string; out?: string; workers?: string; queue?: string; gather?: boolean; status?: boolean; cancel?: boolean; rerun?: string; json?: boolean; quiet?: boolean; help?: boolean };
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({
      args: [...argv],
      options: { sweep: { type: 'string' }, out: { type: 'string' }, workers: { type: 'string' }, queue: { type: 'string' }, gather: { type: 'boolean' }, status: { type: 'boolean' }, cancel: { type: 'boolean' }, rerun: { type: 'string' }, json: { type: 'boolean' }, quiet: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
      allowPositionals: true,
      strict: true,
    }));
  } catch (err) {
    io.stderr(`${(err as Error).message}\n\n${USAGE}\n`);
    return ExitCode.USAGE;
  }
  if (values.help) {
    io.stdout(`${USAGE}\n`);
    return ExitCode.OK;
  }
  if (values.rerun !== undefined) {
    setReplayFlags();
    return rerunOf(values.rerun, positionals.length > 0 || values.sweep !== undefined, values.out, io);
  }
  if (positionals.length !== 1) {
    io.stderr(`expected exactly one config file\n\n${USAGE}\n`);
    return ExitCode.USAGE;
  }
  const workers = values.workers === undefined ? undefined : Number(values.workers);
  if (workers !== undefined && !(Number.isInteger(workers) && workers > 0)) {
    io.stderr(`--workers=${values.workers}: must be a positive integer\n\n${USAGE}\n`);
    return ExitCode.USAGE;
  }
  let target: RedisTarget | undefined;
  try {
    target = queueTarget(values, io.env);
  } catch (err) {
    io.stderr(`${(err as Error).message}\n\n${USAGE}\n`);
    return ExitCode.USAGE;
  }
  try {
    const cfg = loadBacktestConfig(positionals[0] as string);
    const out = values.out !== undefined ? path.resolve(values.out) : (cfg.backtest.output ?? path.resolve('reports', cfg.name));
    // Found out before the run, not when its reports cannot be written at the end of it.
    const problem = outputDirProblem(out);
    if (problem !== undefined) {
      io.stderr(`${values.out !== undefined ? `--out=${values.out}` : `backtest.output=${out}`}: ${problem}\n${values.out !== undefined ? `\n${USAGE}\n` : ''}`);
      return values.out !== undefined ? ExitCode.USAGE : ExitCode.FAILED;
    }
    if (values.sweep !== undefined) {
      setReplayFlags();
      return await runSweepCommand(cfg, out, { sweep: values.sweep, workers, target, gather: values.gather === true, status: values.status === true, cancel: values.cancel === true, json: values.json === true, quiet: values.quiet === true }, io);
    }
    // Before the run reads them: a missing file is named by its place in the config.
    checkDataFiles(cfg);
    const files = [...cfg.backtest.recordings.flatMap((r) => r.files), ...cfg.backtest.candles.flatMap((c) => c.files)];
    // Progress is by bytes read of the files' sizes: nothing is read before the run.
    const total = values.quiet ? 0 : await totalBytes(files);
    const progress = values.quiet ? undefined : createProgress(total, { isTTY: process.stderr.isTTY, write: (s: string) => io.stderr(s) });
    let done: ProgressState = { bytes: 0, items: 0 };
    // Strategy logs at the config's level, on stderr (stdout carries the summary or --json).
    const pretty = cfg.logging.pretty ?? Boolean(process.stderr.isTTY);
    const log = createLogger({ level: cfg.logging.level, pretty, destination: pretty ? process.stderr : ({ write: (s: string) => (io.stderr(s), true) } as unknown as NodeJS.WritableStream) });
    // Ctrl-C mid-run: one line and exit 130; the reports are written whole or not at all (writeReports).
    const offSignals = onStopSignals((sig) => {
      progress?.stop(done);
      io.stderr(`backtest interrupted (${sig}): no result written\n`);
      process.exit(ExitCode.INTERRUPTED);
    });
    let result: Awaited<ReturnType<typeof runBacktest>>;
    try {
      result = await runBacktest(cfg, { writeOutput: false, log, onPrepared: setReplayFlags, onProgress: progress ? (st, read) => progress.update((done = { bytes: read.bytes ?? 0, items: st.events + st.snapshots })) : undefined });
    } finally {
      offSignals();
    }
    progress?.stop(done);
    let written: { json: string; html: string };
    try {
      written = writeReports(out, result);
    } catch (err) {
      // Checked before the run; a disk that filled up (or a folder removed) meanwhile still gets a sentence, not a trace.
      io.stderr(`backtest: cannot write the reports to ${out}: ${(err as Error).message}\n`);
      return ExitCode.FAILED;
    }
    if (values.json) copyToStdout(written.json, io);
    else io.stdout(`${summary(result)}wrote ${written.json} and ${written.html}\n`);
    // The run's spooled lists (spilled to disk on a long run) are not needed any more.
    streamsOf(result).dispose();
    // A strategy that threw was stopped; the report says so, and so does the exit code.
    if (result.failures.length > 0) {
      io.stderr(`backtest failed: ${result.failures.map(failureText).join('; ')}\n`);
      return ExitCode.FAILED;
    }
    return ExitCode.OK;
  } catch (err) {
    return failed(err, 'backtest', io);
  }
}

/** The `backtest` command. */
export const command: Command = { usage: USAGE, run };
