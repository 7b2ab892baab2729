/**
 * Risk checker throughput: the scaled-integer checker (src/risk/checkIntent.ts) against the plain
 * decimal.js reference (src/risk/reference) on the same realistic intent flow (market makers:
 * limit and post-only orders on the grids, stop-limits, some market orders, 10% cancels, every
 * user limit configured). Verdicts must be identical intent by intent before any timing counts.
 * Rates are given per wall-clock second and per CPU second of this process (the machine is shared,
 * so CPU time is the steadier measure). Goal: >= 2,000,000 checks per second.
 * Measured history and where the time goes: docs/performance.md.
 */
import { checkIntent, riskPathStats } from '../src/risk/checkIntent.js';
import { checkIntentReference } from '../src/risk/reference/checkIntentReference.js';
import { decisionKey } from '../src/risk/reference/compareDecisions.js';
import { realisticFlow } from '../src/risk/reference/randomIntents.js';
import type { RiskDecision } from '../src/risk/types.js';
import type { Intent } from '../src/bus/intents.js';
import type { StaticRiskContext } from '../src/risk/testkit.js';
import { fmtRate, fmtRatio, type BenchReport } from './report.js';

const GOAL = 2_000_000;

type Check = (i: Intent, c: StaticRiskContext) => RiskDecision;

/** Best of `rounds` passes over the flow: checks per wall second and per CPU second. */
function measure(check: Check, intents: readonly Intent[], ctxs: readonly StaticRiskContext[], pairs: Uint8Array, rounds: number, passes: number): { wall: number; cpu: number; accepted: number } {
  let bestWall = 0;
  let bestCpu = 0;
  let accepted = 0;
  for (let r = 0; r < rounds; r++) {
    const c0 = process.cpuUsage();
    const t0 = process.hrtime.bigint();
    accepted = 0;
    for (let p = 0; p < passes; p++) {
      for (let n = 0; n < intents.length; n++) if (check(intents[n] as Intent, ctxs[pairs[n] as number] as StaticRiskContext).kind !== 'reject') accepted++;
    }
    const wall = Number(process.hrtime.bigint() - t0) / 1e9;
    const cpu = process.cpuUsage(c0);
    const checks = intents.length * passes;
    bestWall = Math.max(bestWall, checks / wall);
    bestCpu = Math.max(bestCpu, checks / ((cpu.user + cpu.system) / 1e6));
  }
  return { wall: bestWall, cpu: bestCpu, accepted };
}

/** Runs the benchmark. */
export async function run(): Promise<BenchReport> {
  const { intents, contexts, pairs } = realisticFlow(7, 100_000);
  let disagreements = 0;
  let first = '';
  for (let n = 0; n < intents.length; n++) {
    const i = intents[n] as Intent;
    const c = contexts[pairs[n] as number] as StaticRiskContext;
    const a = decisionKey(checkIntent(i, c));
    const b = decisionKey(checkIntentReference(i, c));
    if (a !== b && disagreements++ === 0) first = `${JSON.stringify(i)}: ${a} vs ${b}`;
  }
  const before = { ...riskPathStats };
  const fast = measure(checkIntent, intents, contexts, pairs, 5, 10);
  const share = (riskPathStats.fast - before.fast) / Math.max(1, riskPathStats.fast - before.fast + riskPathStats.fallback - before.fallback);
  const ref = measure(checkIntentReference, intents, contexts, pairs, 1, 1);
  const lines = [
    `flow: ${intents.length.toLocaleString('en-US')} intents (${((fast.accepted / (intents.length * 10)) * 100).toFixed(1)}% pass), identical verdicts: ${disagreements === 0 ? 'yes' : `NO (${disagreements}; first ${first})`}`,
    `fast checker:     ${fmtRate(fast.wall)} wall, ${fmtRate(fast.cpu)} per CPU second (scaled path ${(share * 100).toFixed(2)}%)`,
    `decimal.js ref:   ${fmtRate(ref.wall)} wall, ${fmtRate(ref.cpu)} per CPU second`,
    `ratio:            ${fmtRatio(fast.cpu, ref.cpu)} (CPU time), goal ${fmtRate(GOAL)}: ${fast.cpu >= GOAL ? 'met' : 'missed'}`,
  ];
  return { name: 'risk checker vs decimal.js reference', lines, ok: disagreements === 0 && fast.cpu >= GOAL };
}
