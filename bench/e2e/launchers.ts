/**
 * What npx adds to every kancil command: `kancil --version` run through `npx kancil` and through
 * `node_modules/.bin/kancil` in a project that depends on kancil (a folder whose node_modules
 * links this checkout, as `npm install` would place it), best wall time of a few runs each.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { repoRoot } from './spawnRun.js';

const RUNS = 3;

/** A project depending on this checkout, made afresh under `workDir`; returns its folder. */
function dependentProject(workDir: string): string {
  const dir = path.join(workDir, 'dependent-project');
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(path.join(dir, 'node_modules', '.bin'), { recursive: true });
  writeFileSync(path.join(dir, 'package.json'), `${JSON.stringify({ name: 'uses-kancil', private: true, dependencies: { kancil: '*' } })}\n`);
  symlinkSync(repoRoot, path.join(dir, 'node_modules', 'kancil'), 'dir');
  symlinkSync(path.join('..', 'kancil', 'bin', 'kancil.mjs'), path.join(dir, 'node_modules', '.bin', 'kancil'));
  return dir;
}

/** Best wall seconds of `cmd args` run in `cwd`; throws with its output when it fails. */
function bestWall(cmd: string, args: readonly string[], cwd: string): number {
  let best = Infinity;
  for (let i = 0; i < RUNS; i++) {
    const t0 = process.hrtime.bigint();
    const r = spawnSync(cmd, args, { cwd, encoding: 'utf8' });
    const s = Number(process.hrtime.bigint() - t0) / 1e9;
    if (r.status !== 0 || !r.stdout.startsWith('kancil ')) throw new Error(`${cmd} ${args.join(' ')}: exit ${String(r.status ?? r.signal)}\n${r.stdout}${r.stderr}`);
    best = Math.min(best, s);
  }
  return best;
}

/** One report line: `npx kancil --version` against `node_modules/.bin/kancil --version`, wall seconds. */
export function launcherTimes(workDir: string): string {
  const dir = dependentProject(workDir);
  try {
    const npx = bestWall('npx', ['--no-install', 'kancil', '--version'], dir);
    const bin = bestWall(path.join(dir, 'node_modules', '.bin', 'kancil'), ['--version'], dir);
    return `start-up of the launcher (kancil --version, best of ${RUNS}): npx kancil ${npx.toFixed(2)} s wall, node_modules/.bin/kancil ${bin.toFixed(2)} s wall (README: running kancil without npx)`;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
