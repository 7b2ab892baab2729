/**
 * `npm run soak:rss`: memory of a long paper run. Runs `kancil run config/default.yaml` (the demo
 * market maker on paper against the in-process sandbox's looping replay, the console on) in a
 * child process for `--duration` seconds (default 1800), samples its resident set size from
 * /proc every `--every` seconds, and checks it is flat after the warm-up (the first fifth): the
 * mean of each fifth of the rest within 10 % of the first one's. Prints every sample; exits 1
 * when not flat.
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
if (code !== 0 || warm.length < 5) {
  process.stdout.write(`the run exited ${code} with ${samples.length} samples; its last output:\n${tail}\n`);
  process.exit(1);
}
// Single samples swing with each garbage collection (a sawtooth of ~15 %), which is no growth: the
// verdict compares the means of five equal windows after the warm-up with the first one.
const windows = Array.from({ length: 5 }, (_, i) => warm.slice(Math.floor((i * warm.length) / 5), Math.floor(((i + 1) * warm.length) / 5)));
const means = windows.map((w) => w.reduce((a, x) => a + x.mib, 0) / w.length);
const first = means[0] ?? 0;
const worst = Math.max(...means.map((m) => Math.abs(m / first - 1) * 100));
const flat = worst <= 10;
process.stdout.write(
  `paper run of ${durationSec} s, RSS sampled every ${everySec} s (${samples.length} samples): peak ${Math.max(...samples.map((x) => x.mib)).toFixed(1)} MiB\n` +
    `after warm-up (${Math.round(durationSec / 5)} s): samples ${Math.min(...warm.map((x) => x.mib)).toFixed(1)} to ${Math.max(...warm.map((x) => x.mib)).toFixed(1)} MiB; ` +
    `means of five windows ${means.map((m) => m.toFixed(1)).join(', ')} MiB, at most ${worst.toFixed(1)} % from the first (limit 10 %)\n` +
    `${flat ? 'flat' : 'NOT flat'}\n`,
);
process.exit(flat ? 0 : 1);
