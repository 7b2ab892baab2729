/**
 * Running the built CLI as a person does: in a pseudo-terminal (util-linux `script`), and with
 * its stdout a pipe whose reader has already gone (what `| head -1` becomes once head exits).
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** What a command left: its exit status and what it printed. */
export interface Ran {
  readonly code: number | null;
  /** Everything the terminal showed (stdout and stderr), or stdout for a pipe run. */
  readonly out: string;
  readonly err: string;
}

/** True when `script` (util-linux, in every Debian) is there to give a command a terminal. */
export const hasScript = spawnSync('script', ['--version'], { encoding: 'utf8' }).status === 0;

/** An uncaught exception's stack, or Node's report of one. */
export const STACK = /\n\s+at [^\n]+[:(]|Unhandled 'error' event|EPIPE/;

function collect(child: ReturnType<typeof spawn>, timeoutMs: number, interruptOn?: RegExp): Promise<Ran> {
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    let interrupted = false;
    child.stdout?.on('data', (c: Buffer) => {
      out += c.toString();
      if (interruptOn && !interrupted && interruptOn.test(out)) {
        interrupted = true;
        // Ctrl-C typed into the terminal: the line discipline sends SIGINT to the command.
        child.stdin?.write('\x03');
      }
    });
    child.stderr?.on('data', (c: Buffer) => (err += c.toString()));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`no exit after ${timeoutMs} ms; output so far:\n${out}\n${err}`));
    }, timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, out, err });
    });
  });
}

/** `script` running the shell command `command` in a pseudo-terminal; its stdin a pipe only when keys are to be typed. */
function scriptOf(command: string, cwd: string, env: NodeJS.ProcessEnv, stdin: 'ignore' | 'pipe'): ReturnType<typeof spawn> {
  // -e: script exits with the command's status; -q: no "Script started" lines.
  return spawn('script', ['-qec', command, '/dev/null'], { cwd, env: { ...env, TERM: 'xterm-256color' }, stdio: [stdin, 'pipe', 'pipe'] });
}

/** Runs the shell command `command` in a pseudo-terminal (its stdout and stderr a TTY); resolves with its exit status. */
export function inTerminal(command: string, cwd: string, timeoutMs = 120_000, env: NodeJS.ProcessEnv = process.env): Promise<Ran> {
  return collect(scriptOf(command, cwd, env, 'ignore'), timeoutMs);
}

/**
 * Runs a long-running `command` in a pseudo-terminal and presses Ctrl-C once its output matches
 * `ready` (as a person stops it, and no sooner or later than it is up); resolves with its exit status.
 */
export function interruptedInTerminal(command: string, cwd: string, ready: RegExp, timeoutMs = 120_000): Promise<Ran> {
  // A person's interactive shell gives the command its own foreground process group, so only the
  // command gets the Ctrl-C. `script`'s `sh -c` shares the command's group and dash does not exec
  // it, so the shell would die of the SIGINT (status 130) whatever the command did: exec it.
  return collect(scriptOf(`exec ${command}`, cwd, process.env, 'pipe'), timeoutMs, ready);
}

/**
 * Runs `argv` with stdout a pipe nobody reads any more: the reader closes its end before the
 * command starts (a fifo orders the two), so the first write fails with EPIPE every time, not
 * only when a race goes that way. stderr is captured.
 */
export async function withClosedStdout(argv: readonly string[], cwd: string, timeoutMs = 120_000): Promise<Ran> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'kancil-pipe-'));
  const fifo = path.join(dir, 'go');
  try {
    const script = `mkfifo "$1"; shift; ( read -r _ < "${fifo}"; exec "$@" ) | { exec 0<&-; echo go > "${fifo}"; }; exit "\${PIPESTATUS[0]}"`;
    return await collect(spawn('bash', ['-c', script, 'bash', fifo, ...argv], { cwd, stdio: ['ignore', 'pipe', 'pipe'] }), timeoutMs);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
