/**
 * Where the reaction bench's two processes run. An exchange never runs on the bot's cores: with
 * the sandbox answering orders on the same cores, a loopback write wakes the sandbox and the
 * scheduler may run it at once on the writer's core, so the bot's `write()` returns only after
 * the exchange has matched and answered (~1 ms, counted as the bot's). With `taskset` (util-linux)
 * and at least two allowed cores, the sandbox child gets the last allowed core and the bot stays
 * free on all of them: pinning the bot to the others as well put its GC helpers and the ledger's
 * checkpointer on its one core (paper tick-to-order p99 at 1,000/s 2.3 ms pinned, 0.70 free, on a
 * quiet 2-core machine). Without `taskset`, on one core, or with `REACTION_PIN=0`, both share
 * every core, and the report says so.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

/** How the bench placed its processes: the command prefix for the exchange child, and a line for the report. */
export interface Placement {
  /** Prepended to the exchange child's command (empty when not pinned). */
  readonly exchangePrefix: readonly string[];
  readonly describe: string;
}

/** Names the prefix that pins the exchange child to the last allowed core, when it can; the bot stays free. */
export function placeProcesses(): Placement {
  const shared = (why: string): Placement => ({ exchangePrefix: [], describe: `bot and exchange share every core (${why})` });
  if (process.env.REACTION_PIN === '0') return shared('REACTION_PIN=0');
  const cores = allowedCores();
  if (cores === undefined) return shared('taskset not available');
  if (cores.length < 2) return shared('one core');
  const exchange = cores[cores.length - 1] as number;
  return { exchangePrefix: ['taskset', '-c', String(exchange)], describe: `exchange pinned to core ${exchange} (taskset), bot free on every core` };
}

/** The cores this process may run on ("pid N's current affinity list: 0-2,5"), or undefined without taskset. */
function allowedCores(): number[] | undefined {
  const r = spawnSync('taskset', ['-p', '-c', String(process.pid)], { encoding: 'utf8' });
  if (r.error !== undefined || r.status !== 0) return undefined;
  const list = /list:\s*(\S+)/.exec(r.stdout)?.[1];
  if (list === undefined) return undefined;
  const cores: number[] = [];
  for (const part of list.split(',')) {
    const [a, b] = part.split('-').map(Number);
    if (a === undefined || !Number.isInteger(a)) return undefined;
    for (let c = a; c <= (b ?? a); c++) cores.push(c);
  }
  return cores;
}

/**
 * Time this process's main thread (the bot's event loop) has spent runnable but waiting for a core,
 * in ms, from Linux's /proc/self/schedstat (its second field, ns); undefined elsewhere. Read before
 * and after a measured stretch it tells how much of that stretch other processes took from the
 * bot: figures taken while it waited a large share are the machine's, not the bot's.
 */
export function coreWaitMs(): number | undefined {
  try {
    const waited = Number(readFileSync('/proc/self/schedstat', 'utf8').split(' ')[1]);
    return Number.isFinite(waited) ? waited / 1e6 : undefined;
  } catch {
    return undefined;
  }
}
