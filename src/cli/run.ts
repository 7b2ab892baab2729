/**
 * `kancil run <config.yaml>`: runs strategies live (against the exchange URLs in the config, or an
 * in-process sandbox) or on paper (live market data, fills from the matching engine). Stops on
 * SIGINT/SIGTERM, after `--duration` / `run.durationSec`, or when an in-process sandbox's replay
 * played once has ended, and prints a summary. Credentials come
 * only from the environment (or the in-process sandbox's test account) and are redacted from logs.
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import { pino, type Logger } from 'pino';
import type { PinoPretty } from 'pino-pretty';
import { ConfigError, ValidationError } from '../core/errors.js';
import { ledgerPathProblem } from '../store/ledgerFile.js';
import { setLongTimeout, type LongTimer } from '../core/longTimer.js';
import { addSecretValues, scrubSecretText } from '../core/secretScrub.js';
import { envSecretValues } from '../config/secrets.js';
import { loadSandboxConfig, startSandbox, type RunningSandbox } from '../sandbox/index.js';
import { restartSafeFirstOrderId } from '../sim/restartIds.js';
import { loadStrategies, plainErrorAt } from '../strategy/loader.js';
import type { StrategyPlugin } from '../strategy/types.js';
import { parseCommandArgs } from './args.js';
import { onClosedPipe } from './closedPipe.js';
import { onStopSignals } from './stopSignals.js';
import { ExitCode, type CliIO, type Command } from './command.js';
import { SECRET_ENV, loadRunConfig, type RunConfig } from './runConfig.js';
import { RunSession, type RunCredentials, type RunEndpoints } from './runSession.js';
import { StartupStopped } from './startupRetry.js';
import { formatSummary } from './runStatus.js';
import { planConsole, startRunConsole } from './runConsole.js';
import { CONSOLE_TOKEN_ENV } from '../console/auth.js';
import { LogTap } from '../console/logTap.js';
import { counted } from '../core/plural.js';

const USAGE = `Usage: kancil run <config.yaml> [--duration <seconds>] [--console]

Runs the strategies of a config in mode live or paper (see config/default.yaml).
  --duration S   stop after S seconds (overrides run.durationSec; 0 = until SIGINT/SIGTERM)
                 An in-process sandbox replaying a recording once (loop: false) also stops
                 the run when the replay ends.
  --console      serve the operator's console (dashboard, control API, /metrics) as the
                 config's console: block says, or on 127.0.0.1:8321; commands need
                 ${CONSOLE_TOKEN_ENV} (a bearer token), so does any bind beyond loopback
                 Notifications (console.notify) read KANCIL_WEBHOOK_URL, KANCIL_TELEGRAM_TOKEN
  -h, --help     this text

Credentials (live mode) come from the environment only:
  ${SECRET_ENV.apiKey}, ${SECRET_ENV.apiSecret}          open API
  ${SECRET_ENV.legacyKey}, ${SECRET_ENV.legacySecret}    legacy /v1 fallback (optional)
A config with an in-process sandbox uses the sandbox's test account instead.`;

/** Log fields that must never carry a value (pino redaction, at any depth we use). */
export const REDACT_PATHS = ['apiKey', 'apiSecret', 'secret', 'legacyKey', 'legacySecret', 'credentials', '*.apiKey', '*.apiSecret', '*.secret', '*.legacyKey', '*.legacySecret', '*.credentials', 'headers["x-mbx-apikey"]', 'headers["x-tc-apikey"]'];

/**
 * The run logger: pretty when `logging.pretty` says so, else when the output is a terminal; JSON
 * lines otherwise. `tap` also receives every (redacted) JSON line: the console's log tail. Pretty
 * lines are formatted in this thread (no transport worker: its file is not in the built package,
 * and a worker that dies takes the run with it). A log output that fails (a write that throws or
 * a stream error) is dropped after one notice on `notice`: the run goes on, stops as it would and
 * prints its summary.
 */
export function runLogger(level: string, stream: NodeJS.WritableStream = process.stdout, pretty?: boolean, tap?: NodeJS.WritableStream, notice: (text: string) => void = () => undefined): Logger {
  const tty = pretty ?? (stream as NodeJS.WriteStream).isTTY === true;
  // Fields by name, then secret values wherever they are (a plugin's message, an error's stack).
  const opts = { name: 'kancil', level, redact: { paths: REDACT_PATHS, censor: '[redacted]' }, hooks: { streamWrite: scrubSecretText } };
  const dest = guardedLogOutput(stream, tty ? prettyLines() : (line) => line, notice);
  if (tap) return pino(opts, pino.multistream([{ level: 'trace', stream: dest }, { level: 'trace', stream: tap }]));
  return pino(opts, dest);
}

/** pino-pretty's formatter of one JSON line (loaded only for a terminal: ~40 modules a JSON run never needs). */
function prettyLines(): (line: string) => string {
  const { prettyFactory } = createRequire(import.meta.url)('pino-pretty') as typeof PinoPretty;
  const format = prettyFactory({ colorize: true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname,name' });
  return (line) => format(line);
}

/** A pino destination writing `format(line)` to `stream` until the first failure, then nothing. */
function guardedLogOutput(stream: NodeJS.WritableStream, format: (line: string) => string, notice: (text: string) => void): { write(line: string): boolean } {
  let failed = false;
  const fail = (err: unknown): void => {
    if (failed) return;
    failed = true;
    // A reader that went away is not a failure to report (closedPipe.ts stops the run).
    if ((err as NodeJS.ErrnoException).code === 'EPIPE') return;
    notice(`kancil run: the log output failed (${err instanceof Error ? err.message : String(err)}); the run goes on without it\n`);
  };
  stream.on('error', fail);
  return {
    write(line: string): boolean {
      if (failed) return true;
      try {
        stream.write(format(line));
      } catch (err) {
        fail(err);
      }
      return true;
    },
  };
}

async function loadPlugins(cfg: RunConfig): Promise<Map<string, StrategyPlugin>> {
  // Loads every plugin and checks its params now, so a bad one is a ConfigError naming
  // strategies[i].params.<path> and the value before anything connects or trades.
  const specs = await loadStrategies(cfg.strategies, cfg.dir, plainErrorAt(cfg.file));
  return new Map(specs.map((s) => [s.name, s.plugin]));
}

/** Resolves where to connect and with which credentials. */
async function connectTarget(cfg: RunConfig, env: CliIO['env'], log: Logger): Promise<{ endpoints: RunEndpoints; credentials: RunCredentials; sandbox: RunningSandbox | undefined }> {
  if (cfg.sandbox) {
    // The run's ledger outlives this sandbox: ids must not repeat an earlier run's.
    const sandbox = await startSandbox({ ...loadSandboxConfig(cfg.sandbox.config), firstOrderId: restartSafeFirstOrderId(Date.now()) });
    const wanted = cfg.sandbox.account;
    const acct = wanted === undefined ? sandbox.accounts[0] : sandbox.accounts.find((a) => a.id === wanted);
    if (!acct) {
      await sandbox.stop();
      throw new ValidationError('sandbox.account', wanted, 'no such account in the sandbox config');
    }
    addSecretValues([acct.apiKey, acct.secret, acct.legacyApiKey, acct.legacySecret]);
    log.info({ urls: sandbox.urls, account: acct.id }, 'in-process sandbox started');
    return {
      endpoints: sandbox.urls,
      credentials: { apiKey: acct.apiKey, apiSecret: acct.secret, legacyKey: acct.legacyApiKey, legacySecret: acct.legacySecret },
      sandbox,
    };
  }
  const ex = cfg.exchange;
  if (!ex) throw new ValidationError('exchange', undefined, 'missing');
  const credentials: RunCredentials = {
    ...(env[SECRET_ENV.apiKey] ? { apiKey: env[SECRET_ENV.apiKey] } : {}),
    ...(env[SECRET_ENV.apiSecret] ? { apiSecret: env[SECRET_ENV.apiSecret] } : {}),
    ...(env[SECRET_ENV.legacyKey] ? { legacyKey: env[SECRET_ENV.legacyKey] } : {}),
    ...(env[SECRET_ENV.legacySecret] ? { legacySecret: env[SECRET_ENV.legacySecret] } : {}),
  };
  return { endpoints: ex, credentials, sandbox: undefined };
}

/** Parses `--duration`. */
function durationOption(v: string | undefined, fallback: number): number {
  if (v === undefined) return fallback;
  if (!/^\d+(\.\d+)?$/.test(v) || !Number.isFinite(Number(v))) throw new ValidationError('--duration', v, 'must be a number of seconds');
  return Number(v);
}

/**
 * Waits for what ends a run: SIGINT/SIGTERM, the duration (0: none), or the end of the in-process
 * sandbox's replay (a recording played once: after its last event the market is frozen, and a
 * paper run idling on to its duration would only add empty time to the summary). A run against an
 * external exchange, or a sandbox whose market never ends (looped or synthetic), has no
 * `marketEnded` and stops as before. Leaves no listener or timer behind.
 */
export async function stopReason(durationSec: number, marketEnded: Promise<void> | undefined, log: Logger, operator: Promise<string>): Promise<string> {
  let onSignal: ((sig: NodeJS.Signals) => void) | undefined;
  let timer: LongTimer | undefined;
  try {
    return await new Promise<string>((resolve) => {
      onSignal = (sig: NodeJS.Signals): void => resolve(`signal ${sig}`);
      process.once('SIGINT', onSignal);
      process.once('SIGTERM', onSignal);
      // Chained timers: one Node timer would fire at once past 2^31-1 ms (24.8 days).
      if (durationSec > 0) timer = setLongTimeout(() => resolve(`duration ${durationSec} s`), durationSec * 1000).unref();
      void operator.then(resolve);
      void marketEnded?.then(() => {
        log.info('the sandbox replay played its last event: stopping the run');
        resolve('replay ended');
      });
    });
  } finally {
    if (onSignal) {
      process.removeListener('SIGINT', onSignal);
      process.removeListener('SIGTERM', onSignal);
    }
    timer?.clear();
  }
}

/**
 * Records a SIGINT/SIGTERM, or a closed stdout or stderr (the reader of `kancil run | …` went
 * away), from now on (resolving `reason`) until disposed. While it is registered a closed stream
 * stops the run gracefully rather than ending the process (closedPipe.ts).
 */
function stopRequests(): { reason: Promise<string>; dispose(): void } {
  let onSignal: (sig: NodeJS.Signals) => void = () => undefined;
  let onClosed: (stream: string) => void = () => undefined;
  const reason = new Promise<string>((resolve) => {
    onSignal = (sig) => resolve(`signal ${sig}`);
    onClosed = (stream) => resolve(`${stream} closed`);
  });
  // Held until the session has stopped: a repeat of the signal must not kill the run while it
  // cancels its orders (stopSignals.ts); a deliberate second one, a second later, still can.
  const offSignals = onStopSignals(onSignal);
  const undoClosed = onClosedPipe(onClosed);
  return {
    reason,
    dispose: () => {
      offSignals();
      undoClosed();
    },
  };
}

/** Runs a session until a signal, the duration or the end of the sandbox's replay; returns the exit code. */
export async function runCommand(argv: readonly string[], io: CliIO, logStream: NodeJS.WritableStream = process.stdout): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, { duration: { type: 'string' }, console: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } } as const, true);
  if (values.help) {
    io.stdout(`${USAGE}\n`);
    return ExitCode.OK;
  }
  const file = positionals[0];
  if (file === undefined || positionals.length > 1) throw new ValidationError('config', positionals.join(' '), 'give exactly one config file');
  addSecretValues(envSecretValues(io.env));
  const cfg = loadRunConfig(path.resolve(file));
  const durationSec = durationOption(values.duration, cfg.run.durationSec);
  // A ledger path that cannot hold a ledger is the config's to fix: named before anything starts.
  const ledgerProblem = ledgerPathProblem(cfg.storage.path);
  if (ledgerProblem !== undefined) throw new ConfigError(cfg.file, 'storage.path', cfg.storage.path, ledgerProblem);
  // The console is checked before anything connects: an unsafe one refuses the run.
  const consolePlan = planConsole(cfg, values.console === true, io.env);
  const tap = consolePlan ? new LogTap() : undefined;
  const log = runLogger(cfg.logging.level, logStream, cfg.logging.pretty, tap?.stream, io.stderr);
  const plugins = await loadPlugins(cfg);
  const target = await connectTarget(cfg, io.env, log);
  // A SIGINT/SIGTERM while the session starts (reconciliation may already have found live orders)
  // stops it gracefully once started; without a handler yet, Node would kill it with orders resting.
  const requests = stopRequests();
  try {
    return await runSession(cfg, { io, log, target, plugins, durationSec, requests: requests.reason, consolePlan, tap });
  } finally {
    requests.dispose();
  }
}

/** What {@link runSession} runs with. */
interface SessionParts {
  readonly io: CliIO;
  readonly log: Logger;
  readonly target: Awaited<ReturnType<typeof connectTarget>>;
  readonly plugins: Map<string, StrategyPlugin>;
  readonly durationSec: number;
  readonly requests: Promise<string>;
  readonly consolePlan: ReturnType<typeof planConsole>;
  readonly tap: LogTap | undefined;
}

/** Starts the session, waits for what stops it, stops it and prints the summary; returns the exit code. */
async function runSession(cfg: RunConfig, p: SessionParts): Promise<number> {
  const { io, log, target, consolePlan, tap } = p;
  let session: RunSession;
  // A stop asked for during start-up ends its waits for an unavailable exchange (up to
  // run.startupWaitSec) at once; otherwise it stops the session gracefully once started.
  const startup = new AbortController();
  void p.requests.then((reason) => startup.abort(reason));
  // A sandbox that failed during start-up may never send the books: its failure (and only that)
  // ends the wait for them too, and the start-up's other waits.
  const sandboxDown = new AbortController();
  const sandboxFailed = target.sandbox?.failures.failed.then((f) => `sandbox failed in ${f.where}: ${f.error.message}`);
  void sandboxFailed?.then((reason) => (sandboxDown.abort(reason), startup.abort(reason)));
  try {
    session = await RunSession.start({ config: cfg, endpoints: target.endpoints, credentials: target.credentials, plugins: p.plugins, log, stopSignal: startup.signal, booksSignal: sandboxDown.signal });
  } catch (err) {
    await target.sandbox?.stop();
    if (!(err instanceof StartupStopped)) throw err;
    log.flush?.();
    io.stdout(`run stopped (${err.reason}) during start-up, ${err.during}: nothing traded${err.ordersLeft > 0 ? `; ${counted(err.ordersLeft, 'order')} of earlier runs ${err.ordersLeft === 1 ? 'is' : 'are'} still live in the ledger (the next start reconciles them)` : ''}\n`);
    // A failed sandbox is a failed start (exit 1), as when its failure stops a started run.
    if (target.sandbox?.failures.first !== undefined) return ExitCode.FAILED;
    return err.ordersLeft > 0 ? ExitCode.ORDERS_LEFT : ExitCode.OK;
  }
  let requestStop: (reason: string) => void = () => undefined;
  const operatorStop = new Promise<string>((resolve) => (requestStop = resolve));
  void p.requests.then(requestStop);
  // An in-process sandbox whose own code threw stops the run in order (stop row, summary, exit 1).
  void sandboxFailed?.then(requestStop);
  // An event the run could not handle (a ledger write on a full disk) stops it in order, exit 1.
  void session.failure.failed.then(requestStop);
  const consoleHandle = consolePlan ? await startRunConsole(session, { plan: consolePlan, log, ...(tap ? { tap } : {}), requestStop }) : undefined;
  if (consoleHandle?.url !== undefined) io.stdout(`console: ${consoleHandle.url}/ (dashboard; API ${consoleHandle.url}/api, metrics ${consoleHandle.url}/metrics)\n`);
  const reason = await stopReason(p.durationSec, target.sandbox?.marketEnded, log, operatorStop);
  const summary = await session.stop(reason);
  await consoleHandle?.close(reason);
  await target.sandbox?.stop();
  log.info({ summary }, 'summary');
  log.flush?.();
  io.stdout(formatSummary(summary));
  if (summary.failures.length > 0 || target.sandbox?.failures.first !== undefined || session.failure.reason !== undefined) return ExitCode.FAILED;
  return summary.ordersLeft > 0 ? ExitCode.ORDERS_LEFT : ExitCode.OK;
}

/** The `run` subcommand. */
export const command: Command = {
  usage: USAGE,
  run: (argv, io) => runCommand(argv, io),
};
