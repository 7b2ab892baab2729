/**
 * `kancil run` as a child process (the way an operator or a supervisor runs it), for tests that
 * kill, restart or starve it: its exit code, all of its output, and a wait for a line in it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { childOutput } from './childOutput.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/** A started bot. */
export interface BotProcess {
  readonly child: ChildProcess;
  /**
   * Resolves with the exit code (null when killed by a signal; `child.signalCode` says which) once
   * the process exited and its stdout and stderr closed, so `output()` then holds every byte.
   */
  readonly exit: Promise<number | null>;
  /** Everything written to stdout and stderr so far, whole: a test may check that a line is absent. */
  output(): string;
  /** True while the process runs. */
  alive(): boolean;
  /** Resolves true when a chunk of output matches `re` (from now on), false after `ms` or at exit. */
  waitForOutput(re: RegExp, ms: number): Promise<boolean>;
}

/** Starts `kancil run <configFile>` with the given environment added to this process's. */
export function startBot(configFile: string, env: Record<string, string>, extra: readonly string[] = []): BotProcess {
  return startKancil(['run', configFile, ...extra], env);
}

/**
 * Starts `kancil <args>` from the sources with the given environment added to this process's;
 * `root` runs another copy of kancil (another build, for tests of mixed workers).
 */
export function startKancil(args: readonly string[], env: Record<string, string> = {}, root = repoRoot): BotProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(root, 'src/cli/main.ts'), ...args], {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const out = childOutput(child, `kancil ${args.join(' ')}`);
  const exit = out.closed.then((end) => end.code);
  const alive = (): boolean => child.exitCode === null && child.signalCode === null;
  const waitForOutput = (re: RegExp, ms: number): Promise<boolean> =>
    new Promise((resolve) => {
      const done = (v: boolean): void => {
        unsubscribe();
        clearTimeout(timer);
        resolve(v);
      };
      // Chunks are joined (a line may be cut between two), keeping a tail long enough for one line.
      let seen = '';
      const watch = (chunk: string): void => {
        seen = (seen + chunk).slice(-65_536);
        if (re.test(seen)) done(true);
      };
      const timer = setTimeout(() => done(false), ms);
      const unsubscribe = out.onChunk(watch);
      void exit.then(
        () => done(false),
        () => done(false),
      );
    });
  return { child, exit, output: out.both, alive, waitForOutput };
}
