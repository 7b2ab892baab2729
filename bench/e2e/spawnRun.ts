/**
 * Runs one command of the CLI as a user would (`node bin/kancil.mjs …`, a fresh process) and
 * returns its wall time, CPU time and peak RSS (from bench/e2e/usage.mjs, preloaded).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
/** The project root. */
export const repoRoot = path.resolve(here, '../..');

/** What one process used. */
export interface ProcessUsage {
  readonly wallS: number;
  readonly cpuS: number;
  readonly peakRssMiB: number;
  readonly stdout: string;
}

/** The median run by CPU time. */
export function medianRun(runs: readonly ProcessUsage[]): ProcessUsage {
  return [...runs].sort((a, b) => a.cpuS - b.cpuS)[Math.floor(runs.length / 2)] as ProcessUsage;
}

/** Runs `kancil <args>`; throws with its output when it exits non-zero. */
export function runKancil(args: readonly string[], env: NodeJS.ProcessEnv = process.env): ProcessUsage {
  return runNode([path.join(repoRoot, 'bin/kancil.mjs'), ...args], env);
}

/** Runs `node <args>` in the project root with `env` (its usage measured as for {@link runKancil}); throws when it exits non-zero. */
export function runNode(args: readonly string[], env: NodeJS.ProcessEnv = process.env): ProcessUsage {
  const dir = mkdtempSync(path.join(tmpdir(), 'kancil-e2e-usage-'));
  const usageFile = path.join(dir, 'usage.json');
  try {
    const t0 = process.hrtime.bigint();
    const r = spawnSync(process.execPath, ['--import', pathToFileURL(path.join(here, 'usage.mjs')).href, ...args], {
      cwd: repoRoot,
      env: { ...env, KANCIL_BENCH_USAGE: usageFile },
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
    });
    const wallS = Number(process.hrtime.bigint() - t0) / 1e9;
    if (r.status !== 0) throw new Error(`node ${args.join(' ')}: exit ${String(r.status ?? r.signal)}\n${r.stderr.slice(-2000)}`);
    const u = JSON.parse(readFileSync(usageFile, 'utf8')) as { userCPUTime: number; systemCPUTime: number; maxRSS: number };
    return { wallS, cpuS: (u.userCPUTime + u.systemCPUTime) / 1e6, peakRssMiB: u.maxRSS / 1024, stdout: r.stdout };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
