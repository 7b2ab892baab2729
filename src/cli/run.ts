/**
 * `kancil run <config.yaml>`: runs strategies live (against the exchange URLs in the config, or an
 * in-process sandbox) or on paper (live market data, fills from the matching engine). Stops on
 * SIGINT/SIGTERM, after `--duration` / `run.durationSec`, or when an in-process sandbox's replay
 * played once has ended, and prints a summary. Credentials come
 * only from the environment (or the in-process sandbox's test account) and are redacted from logs.
 */
import path from 'node:path';
import { pino, type Logger } from 'pino';
import { ValidationError } from '../core/errors.js';
import { loadSandboxConfig, startSandbox, type RunningSandbox } from '../sandbox/index.js';
import { loadStrategies, plainErrorAt } from '../strategy/loader.js';
import type { StrategyPlugin } from '../strategy/types.js';
import { parseCommandArgs } from './args.js';
import { ExitCode, type CliIO, type Command } from './command.js';
import { SECRET_ENV, loadRunConfig, type RunConfig } from './runConfig.js';
import { RunSession, type RunCredentials, type RunEndpoints } from './runSession.js';
import { formatSummary } from './runStatus.js';
import { planConsole, startRunConsole } from './runConsole.js';
import { CONSOLE_TOKEN_ENV } from '../console/auth.js';
import { LogTap } from '../console/logTap.js';

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
 * lines otherwise. `tap` also receives every (redacted) JSON line: the console's log tail.
 */
export function runLogger(level: string, stream: NodeJS.WritableStream = process.stdout, pretty?: boolean, tap?: NodeJS.WritableStream): Logger {
  const tty = pretty ?? (stream as NodeJS.WriteStream).isTTY === true;
  const opts = { name: 'kancil', level, redact: { paths: REDACT_PATHS, censor: '[redacted]' } };
  const prettyOptions = { colorize: true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname,name' };
  if (tap) {
    const dest = tty ? pino.transport({ target: 'pino-pretty', options: prettyOptions }) : stream;
    return pino(opts, pino.multistream([{ level: 'trace', stream: dest }, { level: 'trace', stream: tap }]));
  }
  if (tty) return pino({ ...opts, transport: { target: 'pino-pretty', options: prettyOptions } });
  return pino(opts, stream);
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
    const sandbox = await startSandbox(loadSandboxConfig(cfg.sandbox.config));
    const wanted = cfg.sandbox.account;
    const acct = wanted === undefined ? sandbox.accounts[0] : sandbox.accounts.find((a) => a.id === wanted);
    if (!acct) {
      await sandbox.stop();
      throw new ValidationError('sandbox.account', wanted, 'no such account in the sandbox config');
    }
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
  if (!/^\d+(\.\d+)?$/.test(v)) throw new ValidationError('--duration', v, 'must be a number of seconds');
  return Number(v);
}

/**
 * Waits for what ends a run: SIGINT/SIGTERM, the duration (0: none), or the end of the in-process
 * sandbox's replay (a recording played once: after its last event the market is frozen, and a
 * paper run idling on to its duration would only add empty time to the summary). A run against an
 * external exchange, or a sandbox whose market never ends (looped or synthetic), has no
 * `marketEnded` and stops as before. Leaves no listener or timer behind.
 */
async function stopReason(durationSec: number, marketEnded: Promise<void> | undefined, log: Logger, operator: Promise<string>): Promise<string> {
  let onSignal: ((sig: NodeJS.Signals) => void) | undefined;
  let timer: NodeJS.Timeout | undefined;
  try {
    return await new Promise<string>((resolve) => {
      onSignal = (sig: NodeJS.Signals): void => resolve(`signal ${sig}`);
      process.once('SIGINT', onSignal);
      process.once('SIGTERM', onSignal);
      if (durationSec > 0) timer = setTimeout(() => resolve(`duration ${durationSec} s`), durationSec * 1000).unref();
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
    clearTimeout(timer);
  }
}

/** Records a SIGINT/SIGTERM from now on (resolving `reason`) until disposed. */
function signalWhileStarting(): { reason: Promise<string>; dispose(): void } {
  let onSignal: (sig: NodeJS.Signals) => void = () => undefined;
  const reason = new Promise<string>((resolve) => (onSignal = (sig) => resolve(`signal ${sig}`)));
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  return {
    reason,
    dispose: () => {
      process.removeListener('SIGINT', onSignal);
      process.removeListener('SIGTERM', onSignal);
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
  const cfg = loadRunConfig(path.resolve(file));
  const durationSec = durationOption(values.duration, cfg.run.durationSec);
  // The console is checked before anything connects: an unsafe one refuses the run.
  const consolePlan = planConsole(cfg, values.console === true, io.env);
  const tap = consolePlan ? new LogTap() : undefined;
  const log = runLogger(cfg.logging.level, logStream, cfg.logging.pretty, tap?.stream);
  const plugins = await loadPlugins(cfg);
  const target = await connectTarget(cfg, io.env, log);
  // A SIGINT/SIGTERM while the session starts (reconciliation may already have found live orders)
  // stops it gracefully once started; without a handler yet, Node would kill it with orders resting.
  const early = signalWhileStarting();
  let session: RunSession;
  try {
    session = await RunSession.start({ config: cfg, endpoints: target.endpoints, credentials: target.credentials, plugins, log });
  } catch (err) {
    early.dispose();
    await target.sandbox?.stop();
    throw err;
  }
  let requestStop: (reason: string) => void = () => undefined;
  const operatorStop = new Promise<string>((resolve) => (requestStop = resolve));
  void early.reason.then(requestStop);
  const consoleHandle = consolePlan ? await startRunConsole(session, { plan: consolePlan, log, ...(tap ? { tap } : {}), requestStop }) : undefined;
  if (consoleHandle) io.stdout(`console: ${consoleHandle.url}/ (dashboard; API ${consoleHandle.url}/api, metrics ${consoleHandle.url}/metrics)\n`);
  const reason = await stopReason(durationSec, target.sandbox?.marketEnded, log, operatorStop);
  early.dispose();
  const summary = await session.stop(reason);
  await consoleHandle?.close(reason);
  await target.sandbox?.stop();
  log.info({ summary }, 'summary');
  log.flush?.();
  io.stdout(formatSummary(summary));
  if (summary.failures.length > 0) return ExitCode.FAILED;
  return summary.ordersLeft > 0 ? ExitCode.ORDERS_LEFT : ExitCode.OK;
}

/** The `run` subcommand. */
export const command: Command = {
  usage: USAGE,
  run: (argv, io) => runCommand(argv, io),
};
