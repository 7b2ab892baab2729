/**
 * `kancil` entry: dispatches to the subcommands in commands.ts. A bad argument or config exits 2
 * (an argument's with the usage text); failed operations exit 1 with the error message (never a
 * secret: commands only ever see credentials through the environment and do not print them).
 */
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ConfigError, KancilError, ValidationError } from '../core/errors.js';
import { addSecretValues, scrubSecretText } from '../core/secretScrub.js';
import { envSecretValues } from '../config/secrets.js';
import { guardStdio, isClosed } from './closedPipe.js';
import { ExitCode, type CliIO, type Command } from './command.js';
import { commands } from './commands.js';
import { version } from './version.js';

export { version } from './version.js';

/** Top-level usage, listing every registered command. */
export function usage(): string {
  const width = Math.max(...commands.map((c) => c.name.length));
  return `Usage: kancil <command> [options]

Commands:
${commands.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`).join('\n')}

Run \`kancil <command> --help\` for the options of a command; \`kancil --version\` prints the version.
Exit codes of every command: 0 done; 1 the operation failed; 2 a bad argument or config (named
with its value: running it again cannot help); \`run\` 3: stopped with orders still live; 130: a
backtest stopped by Ctrl-C.
Environment: KANCIL_BASE_URL, KANCIL_MARKET_URL, KANCIL_DEPTH_URL, KANCIL_API_KEY, KANCIL_API_SECRET,
KANCIL_LEGACY_BASE_URL, KANCIL_LEGACY_API_KEY, KANCIL_LEGACY_API_SECRET; for the run's console:
KANCIL_CONSOLE_TOKEN, KANCIL_WEBHOOK_URL, KANCIL_TELEGRAM_TOKEN.
`;
}

// A closed stream takes no more writes (its reader is gone: closedPipe.ts).
const processIO: CliIO = {
  stdout: (t) => {
    if (!isClosed('stdout')) process.stdout.write(t);
  },
  stderr: (t) => {
    if (!isClosed('stderr')) process.stderr.write(t);
  },
  env: process.env,
};

/**
 * Runs the CLI with `argv` (arguments after the program name); resolves to the exit code. The
 * environment's secret values are registered first, and every line a command prints through `io`
 * has them scrubbed (a plugin's message or an exchange error may quote a key).
 */
export async function runCli(argv: readonly string[], cliIO: CliIO = processIO): Promise<number> {
  addSecretValues(envSecretValues(cliIO.env));
  const io: CliIO = { ...cliIO, stdout: (t) => cliIO.stdout(scrubSecretText(t)), stderr: (t) => cliIO.stderr(scrubSecretText(t)) };
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    const target = name === 'help' ? rest[0] : undefined;
    if (target === undefined) {
      io.stdout(usage());
      return name === undefined ? ExitCode.USAGE : ExitCode.OK;
    }
    return runCli([target, '--help'], io);
  }
  if (name === '--version' || name === '-v' || name === 'version') {
    io.stdout(`kancil ${version()}\n`);
    return ExitCode.OK;
  }
  const entry = commands.find((c) => c.name === name);
  if (!entry) {
    io.stderr(`kancil: unknown command ${JSON.stringify(name)}\n\n${usage()}`);
    return ExitCode.USAGE;
  }
  let command: Command | undefined;
  try {
    command = (await entry.load()).command;
    // One --help behaviour for every subcommand, so no command can forget it.
    if (rest.includes('--help') || rest.includes('-h')) {
      io.stdout(`${command.usage.trimEnd()}\n`);
      return ExitCode.OK;
    }
    return await command.run(rest, io);
  } catch (e) {
    // A bad argument or config: starting again cannot help. The usage helps only with an argument.
    if (e instanceof ValidationError || e instanceof ConfigError) {
      io.stderr(`kancil ${name}: ${e.message}\n${e instanceof ValidationError ? `\n${command?.usage ?? usage()}\n` : ''}`);
      return ExitCode.USAGE;
    }
    if (e instanceof KancilError) {
      io.stderr(`kancil ${name}: ${e.message}\n`);
      return ExitCode.FAILED;
    }
    throw e;
  }
}

function isEntryPoint(): boolean {
  const argv1 = process.argv[1];
  if (argv1 === undefined) return false;
  try {
    return realpathSync(argv1) === realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
}

/**
 * Runs the CLI as the process (bin/kancil.mjs): a closed stdout or stderr ends it quietly
 * (closedPipe.ts), and its exit code becomes the process's.
 */
export async function runProcess(argv: readonly string[]): Promise<void> {
  guardStdio(process, (code) => process.exit(code));
  // A bug's error (thrown here, or from a callback nothing awaits) ends the process with exit 1
  // as Node's own handler would, but its stack is printed with the secret values scrubbed.
  const die = (e: unknown): void => {
    process.stderr.write(`${scrubSecretText(e instanceof Error ? (e.stack ?? `${e.name}: ${e.message}`) : String(e))}\n`);
    process.exit(ExitCode.FAILED);
  };
  process.on('uncaughtException', die);
  try {
    process.exitCode = await runCli(argv);
  } catch (e) {
    die(e);
  }
}

// Not awaited: the bundle is one script (bin/bundle-dist.mjs), where a module has no top-level await.
if (isEntryPoint()) void runProcess(process.argv.slice(2));
