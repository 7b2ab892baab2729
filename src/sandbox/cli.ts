/**
 * `kancil sandbox --config config/sandbox.yaml`: starts the sandbox, prints one JSON line with
 * every address (the spec's placeholder names plus admin_url) and the test accounts once it is
 * ready, runs until SIGINT or SIGTERM, then stops cleanly and exits 0.
 *
 * The command object is structurally the CLI's Command contract (usage + run(argv, io)); it does
 * not import src/cli so the dependency direction stays cli -> sandbox.
 */
import { parseArgs } from 'node:util';
import { ValidationError } from '../core/index.js';
import { restartSafeFirstOrderId } from '../sim/restartIds.js';
import { loadSandboxConfig } from './config.js';
import { startSandbox } from './sandbox.js';

/** The I/O a command gets (same shape as src/cli/command.ts CliIO). */
export interface SandboxCliIO {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
  readonly env: Readonly<Record<string, string | undefined>>;
}

const USAGE = `Usage: kancil sandbox [--config FILE]

Starts a local exchange (open API, legacy /v1, streams, WebSocket API) on 127.0.0.1 and prints one
JSON line with base_url, market_url, depth_url, stream_url, stream_url_next, stream_url_new,
ws_api_url, legacy_base_url, admin_url and the test accounts. Stops on SIGINT/SIGTERM.
The keys in the sandbox config are test credentials for the local sandbox only.

Options:
  --config FILE   sandbox YAML (default config/sandbox.yaml)
  -h, --help      this text`;

/** Waits for SIGINT or SIGTERM (or `signal` aborting, for tests). */
function untilStopped(signal?: AbortSignal): Promise<string> {
  return new Promise((resolve) => {
    const done = (why: string): void => {
      process.off('SIGINT', onInt);
      process.off('SIGTERM', onTerm);
      signal?.removeEventListener('abort', onAbort);
      resolve(why);
    };
    const onInt = (): void => done('SIGINT');
    const onTerm = (): void => done('SIGTERM');
    const onAbort = (): void => done('abort');
    process.on('SIGINT', onInt);
    process.on('SIGTERM', onTerm);
    signal?.addEventListener('abort', onAbort);
  });
}

/** The `kancil sandbox` command. */
export const sandboxCommand = {
  usage: USAGE,
  async run(argv: readonly string[], io: SandboxCliIO, signal?: AbortSignal): Promise<number> {
    let values: { config?: string | undefined; help?: boolean | undefined };
    try {
      ({ values } = parseArgs({ args: [...argv], options: { config: { type: 'string' }, help: { type: 'boolean', short: 'h' } }, strict: true }));
    } catch (e) {
      throw new ValidationError('arguments', argv.join(' '), e instanceof Error ? e.message : String(e));
    }
    if (values.help) {
      io.stdout(`${USAGE}\n`);
      return 0;
    }
    // A bot's ledger outlives a restart of this sandbox: ids must not repeat an earlier start's.
    const config = { ...loadSandboxConfig(values.config ?? 'config/sandbox.yaml'), firstOrderId: restartSafeFirstOrderId(Date.now()) };
    if (config.exposed) {
      io.stderr(`kancil sandbox: WARNING: listening on ${config.host} (server.exposed: true): anyone who reaches this address can trade the test accounts, read their keys' balances and stream their orders; the admin API stays on 127.0.0.1\n`);
    }
    const sandbox = await startSandbox(config);
    // Listening before the ready line: a Ctrl-C sent on reading it must stop the sandbox in order,
    // not find Node's default action (exit 130) in the moment between the write and the listener.
    const stopped = untilStopped(signal);
    io.stdout(`${JSON.stringify({ ...sandbox.urls, accounts: sandbox.accounts })}\n`);
    const why = await stopped;
    await sandbox.stop();
    io.stderr(`kancil sandbox: stopped (${why})\n`);
    return 0;
  },
};

/** Registry form expected by src/cli/commands.ts (`load: () => import('../sandbox/cli.js')`). */
export const command = sandboxCommand;
