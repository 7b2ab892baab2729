/**
 * Risk checker throughput: the scaled-integer checker (src/risk/checkIntent.ts) against the plain
 * decimal.js reference (src/risk/reference) on the same realistic intent flow (market makers:
 * limit and post-only orders on the grids, stop-limits, some market orders, 10% cancels, every
 * user limit configured). Verdicts must be identical intent by intent before any timing counts.
 * Rates are given per wall-clock second and per CPU second of this process (the machine is shared,
 * so CPU time is the steadier measure). Goal: >= 2,000,000 checks per second. A second run has the
 * contexts change before every check as a live run's do (new Decimals for the average price, open
 * quantities, balances and positions), so the bounds cache keyed by their identity misses.
 * Latest figures and where the time goes: docs/performance.md.
 */
import { checkIntent, riskPathStats } from '../src/risk/checkIntent.js';
import { checkIntentReference } from '../src/risk/reference/checkIntentReference.js';
import { decisionKey } from '../src/risk/reference/compareDecisions.js';
import { realisticFlow } from '../src/risk/reference/randomIntents.js';
import type { RiskDecision } from '../src/risk/types.js';
import type { Intent } from '../src/bus/intents.js';
import type { StaticRiskContext } from '../src/risk/testkit.js';
import { fmtRate, fmtRatio, type BenchReport } from './report.js';
import { loadavg } from 'node:os';
import type { Decimal } from '../src/core/decimal.js';
import { mulberry32 } from '../src/core/random.js';

const GOAL = 2_000_000;

type Check = (i: Intent, c: StaticRiskContext) => RiskDecision;

/**
 * What changes in a live run's context between two checks, as new Decimal objects (the bounds
 * cache is keyed by their identity): the average price moves, the open quantity on the intent's
 * side changes, and every fourth check a fill moves the quote balance and the base position.
 * Built before timing; applying one is a few map writes.
 */
interface Change {
  readonly symbol: string;
  readonly base: string;
  readonly quote: string;
  readonly buy: boolean;
  readonly avg: Decimal;
  readonly open: Decimal;
  readonly balance: Decimal | undefined;
  readonly position: Decimal | undefined;
}

function liveChanges(intents: readonly Intent[], ctxs: readonly StaticRiskContext[], pairs: Uint8Array): (Change | undefined)[] {
  const rnd = mulberry32(11);
  return intents.map((i, n) => {
    if (i.kind !== 'place') return undefined;
    const c = ctxs[pairs[n] as number] as StaticRiskContext;
    const [base, quote] = i.symbol.split('_') as [string, string];
    const avg0 = c.avg.get(i.symbol) as Decimal;
    const open0 = (i.side === 'BUY' ? c.openBuy : c.openSell).get(i.symbol) as Decimal;
    const fill = n % 4 === 0;
    return {
      symbol: i.symbol,
      base,
      quote,
      buy: i.side === 'BUY',
      avg: avg0.mul(1 + (rnd() - 0.5) * 0.001).toSignificantDigits(12),
      open: open0.mul(0.5 + rnd()).toSignificantDigits(6),
      balance: fill ? (c.balances.get(quote) as Decimal).mul(0.99 + rnd() * 0.02).toSignificantDigits(12) : undefined,
      position: fill ? (c.positions.get(base) as Decimal).mul(0.5 + rnd()).toSignificantDigits(6) : undefined,
    };
  });
}

function apply(ch: Change | undefined, c: StaticRiskContext): void {
  if (ch === undefined) return;
  c.avg.set(ch.symbol, ch.avg);
  (ch.buy ? c.openBuy : c.openSell).set(ch.symbol, ch.open);
  if (ch.balance !== undefined) c.balances.set(ch.quote, ch.balance);
  if (ch.position !== undefined) c.positions.set(ch.base, ch.position);
}

/** Best of `rounds` passes over the flow: checks per wall second and per CPU second. */
function measure(check: Check, intents: readonly Intent[], ctxs: readonly StaticRiskContext[], pairs: Uint8Array, rounds: number, passes: number, changes?: readonly (Change | undefined)[]): { wall: number; cpu: number; accepted: number } {
  let bestWall = 0;
  let bestCpu = 0;
  let accepted = 0;
  for (let r = 0; r < rounds; r++) {
    const c0 = process.cpuUsage();
    const t0 = process.hrtime.bigint();
    accepted = 0;
    for (let p = 0; p < passes; p++) {
      if (changes === undefined) {
        for (let n = 0; n < intents.length; n++) if (check(intents[n] as Intent, ctxs[pairs[n] as number] as StaticRiskContext).kind !== 'reject') accepted++;
      } else {
        for (let n = 0; n < intents.length; n++) {
          const c = ctxs[pairs[n] as number] as StaticRiskContext;
          apply(changes[n], c);
          if (check(intents[n] as Intent, c).kind !== 'reject') accepted++;
        }
      }
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
  // Contexts that change before every check, as a live run's do (fresh contexts, same flow).
  const live = realisticFlow(7, 100_000);
  const changes = liveChanges(live.intents, live.contexts, live.pairs);
  let liveDisagreements = 0;
  for (let n = 0; n < live.intents.length; n++) {
    const c = live.contexts[live.pairs[n] as number] as StaticRiskContext;
    apply(changes[n], c);
    if (decisionKey(checkIntent(live.intents[n] as Intent, c)) !== decisionKey(checkIntentReference(live.intents[n] as Intent, c))) liveDisagreements++;
  }
  const fastLive = measure(checkIntent, live.intents, live.contexts, live.pairs, 5, 10, changes);
  const refLive = measure(checkIntentReference, live.intents, live.contexts, live.pairs, 1, 1, changes);
  const lines = [
    `load average: ${loadavg().map((l) => l.toFixed(2)).join(' ')}`,
    `flow: ${intents.length.toLocaleString('en-US')} intents (${((fast.accepted / (intents.length * 10)) * 100).toFixed(1)}% pass), identical verdicts: ${disagreements === 0 ? 'yes' : `NO (${disagreements}; first ${first})`}`,
    `fast checker:     ${fmtRate(fast.wall)} wall, ${fmtRate(fast.cpu)} per CPU second (scaled path ${(share * 100).toFixed(2)}%)`,
    `decimal.js ref:   ${fmtRate(ref.wall)} wall, ${fmtRate(ref.cpu)} per CPU second`,
    `ratio:            ${fmtRatio(fast.cpu, ref.cpu)} (CPU time), goal ${fmtRate(GOAL)}: ${fast.cpu >= GOAL ? 'met' : 'missed'}`,
    `contexts changing before every check (average price, open quantity; balance and position every 4th), identical verdicts: ${liveDisagreements === 0 ? 'yes' : `NO (${liveDisagreements})`}`,
    `fast checker:     ${fmtRate(fastLive.wall)} wall, ${fmtRate(fastLive.cpu)} per CPU second`,
    `decimal.js ref:   ${fmtRate(refLive.wall)} wall, ${fmtRate(refLive.cpu)} per CPU second; ratio ${fmtRatio(fastLive.cpu, refLive.cpu)} (CPU time)`,
  ];
  return { name: 'risk checker vs decimal.js reference', lines, ok: disagreements === 0 && liveDisagreements === 0 && fast.cpu >= GOAL };
}
