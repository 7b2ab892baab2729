/**
 * `npm run soak`: the chaos soak at length (default 8 minutes of faults; `--duration <s>`,
 * `--seed <n>`). Prints the counts and exits 1 unless every count is zero and the goals are met:
 * 2,000+ orders, 50+ faults, 10+ kills.
 */
import { parseArgs } from 'node:util';
import { formatReport, runChaos } from './chaos.js';

const { values } = parseArgs({ options: { duration: { type: 'string', default: '480' }, seed: { type: 'string', default: '1' } } });
const durationMs = Number(values.duration) * 1000;
const seed = Number(values.seed);
if (!Number.isFinite(durationMs) || durationMs <= 0 || !Number.isInteger(seed)) {
  process.stderr.write('usage: npm run soak -- [--duration <seconds>] [--seed <integer>]\n');
  process.exit(2);
}
const report = await runChaos({ seed, durationMs, faultEveryMs: 2500, killEveryMs: 35_000, log: (l) => process.stderr.write(`${l}\n`) });
process.stdout.write(`${formatReport(report)}\n`);
const zero = report.duplicateOrders + report.lostFills + report.orphanOpenOrders + report.garbageRows + report.balanceMismatches === 0;
const goals = report.orders >= 2000 && report.faultCount >= 50 && report.kills >= 10;
process.stdout.write(`goals (2000+ orders, 50+ faults, 10+ kills): ${goals ? 'met' : 'not met'}; all counts zero: ${zero ? 'yes' : 'no'}\n`);
if (!zero) process.stdout.write(`last bot output:\n${report.lastOutput}\n`);
process.exit(zero && goals ? 0 : 1);
