/**
 * `kancil run` as a child process (the way an operator or a supervisor runs it), for tests that
 * kill, restart or starve it: its exit code, its output, and a wait for a line in that output.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/** A started bot. */
export interface BotProcess {
  readonly child: ChildProcess;
  /** Resolves with the exit code (null when killed by a signal). */
  readonly exit: Promise<number | null>;
  /** Everything written to stdout and stderr so far. */
  output(): string;
  /** True while the process runs. */
  alive(): boolean;
}

/** Starts `kancil run <configFile>` with the given environment added to this process's. */
export function startBot(configFile: string, env: Record<string, string>, extra: readonly string[] = []): BotProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(repoRoot, 'src/cli/main.ts'), 'run', configFile, ...extra], {
    cwd: repoRoot,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout?.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr?.on('data', (c: Buffer) => (out += c.toString()));
  const exit = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
  return { child, exit, output: () => out, alive: () => child.exitCode === null && child.signalCode === null };
}
