/**
 * `npm run soak:rss`: memory of a long paper run. Runs `kancil run config/default.yaml` (the demo
 * market maker on paper against the in-process sandbox's looping replay, the console on) in a
 * child process for `--duration` seconds (default 1800), samples its resident set size from
 * /proc every `--every` seconds, and checks it is flat after the warm-up (the first fifth): the
 * largest sample at most 10 % above the smallest. Prints every sample; exits 1 when not flat.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { parse, stringify } from 'yaml';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const { values } = parseArgs({ options: { duration: { type: 'string', default: '1800' }, every: { type: 'string', default: '10' } } });
const durationSec = Number(values.duration);
const everySec = Number(values.every);
if (!Number.isInteger(durationSec) || durationSec < 60 || !(everySec > 0)) {
  process.stderr.write('usage: npm run soak:rss -- [--duration <seconds, 60 or more>] [--every <seconds>]\n');
  process.exit(2);
}

/** Resident set size of `pid` in MiB (Linux /proc), or undefined once it has exited. */
function rssMiB(pid: number): number | undefined {
  try {
    const m = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : undefined;
  } catch {
    return undefined;
  }
}

const dir = mkdtempSync(path.join(os.tmpdir(), 'kancil-rss-'));
const doc = parse(readFileSync(path.join(root, 'config/default.yaml'), 'utf8')) as Record<string, unknown>;
const file = path.join(dir, 'run.yaml');
writeFileSync(file, stringify({ ...doc, sandbox: { config: path.join(root, 'config/paper-sandbox.yaml') }, storage: { path: path.join(dir, 'run.db') }, logging: { level: 'warn' }, console: { port: 0 }, run: { ...(doc.run as object), durationSec, statusIntervalSec: 60 } }));
// node --import tsx: the child is the bot itself, so its /proc entry is the bot's memory.
const child = spawn(process.execPath, ['--import', 'tsx', path.join(root, 'src/cli/main.ts'), 'run', file], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
let tail = '';
const keep = (c: Buffer): void => void (tail = (tail + c.toString()).slice(-4000));
child.stdout.on('data', keep);
child.stderr.on('data', keep);
const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));

const samples: { t: number; mib: number }[] = [];
const t0 = Date.now();
const timer = setInterval(() => {
  const mib = child.pid === undefined ? undefined : rssMiB(child.pid);
  if (mib !== undefined) {
    samples.push({ t: Math.round((Date.now() - t0) / 1000), mib });
    process.stderr.write(`${samples.at(-1)?.t} s  ${mib.toFixed(1)} MiB\n`);
  }
}, everySec * 1000);
const code = await exited;
clearInterval(timer);
rmSync(dir, { recursive: true, force: true });

const warm = samples.filter((s) => s.t >= durationSec / 5);
if (code !== 0 || warm.length < 3) {
  process.stdout.write(`the run exited ${code} with ${samples.length} samples; its last output:\n${tail}\n`);
  process.exit(1);
}
const min = Math.min(...warm.map((s) => s.mib));
const max = Math.max(...warm.map((s) => s.mib));
const spread = (max / min - 1) * 100;
const quarter = Math.max(1, Math.floor(warm.length / 4));
const mean = (xs: readonly { mib: number }[]): number => xs.reduce((a, s) => a + s.mib, 0) / xs.length;
process.stdout.write(
  `paper run of ${durationSec} s, RSS sampled every ${everySec} s (${samples.length} samples): peak ${Math.max(...samples.map((s) => s.mib)).toFixed(1)} MiB\n` +
    `after warm-up (${Math.round(durationSec / 5)} s): ${min.toFixed(1)} to ${max.toFixed(1)} MiB, spread ${spread.toFixed(1)} % (limit 10 %); first quarter mean ${mean(warm.slice(0, quarter)).toFixed(1)} MiB, last quarter ${mean(warm.slice(-quarter)).toFixed(1)} MiB\n` +
    `${spread <= 10 ? 'flat' : 'NOT flat'}\n`,
);
process.exit(spread <= 10 ? 0 : 1);
