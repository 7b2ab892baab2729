/**
 * What a start-up figure holds besides kancil: the CPU of Node starting and exiting with nothing
 * to run (`node -e 0`, with the bench's usage preload), and, when the environment sets
 * NODE_EXTRA_CA_CERTS, the start-up without it. Node 20 reads and parses that certificate file
 * at every start, before any JavaScript runs and whether or not the process opens a TLS
 * connection; with the system bundle (~140 certificates) that was ~0.05 s of a 0.31 s start-up
 * on this kind of machine, paid by `node -e 0` alike. kancil cannot avoid it; the lines say how
 * much of the figure it is, and the goal is judged on the figure as measured.
 */
import { type ProcessUsage, medianRun, runKancil, runNode } from './spawnRun.js';

/** Median CPU seconds of `n` runs of `run`. */
function medianCpu(n: number, run: () => ProcessUsage): number {
  const runs: ProcessUsage[] = [];
  for (let i = 0; i < n; i++) runs.push(run());
  return medianRun(runs).cpuS;
}

/** Report lines: Node's own start-up CPU, and the start-up of `kancil <args>` without NODE_EXTRA_CA_CERTS when it is set. */
export function startupFloorLines(args: readonly string[], n: number): string[] {
  const lines = [`start-up floor: node -e 0 CPU ${medianCpu(n, () => runNode(['-e', '0'])).toFixed(3)} s (Node alone in this environment, median of ${n})`];
  const extra = process.env.NODE_EXTRA_CA_CERTS;
  if (extra !== undefined && extra !== '') {
    const env = { ...process.env };
    delete env.NODE_EXTRA_CA_CERTS;
    const kancil = medianCpu(n, () => runKancil(args, env));
    const bare = medianCpu(n, () => runNode(['-e', '0'], env));
    lines.push(`NODE_EXTRA_CA_CERTS=${extra} is set: Node loads it at every start; without it start-up CPU ${kancil.toFixed(3)} s, node -e 0 ${bare.toFixed(3)} s (median of ${n}; for information, the goal is judged on the figure above)`);
  }
  return lines;
}
