/**
 * Queue sweeps across machines, here two `kancil worker` processes on a real redis-server on
 * loopback: one is SIGKILLed mid-job and its job is retried by the other; every point equals the
 * embedded pool's; no job runs to completion twice; a re-gather (or the same command again)
 * finds the finished jobs and runs nothing; each point names the worker that ran it. A job that
 * cannot run on a worker (its recording is missing there, a worker of another build of kancil) is
 * handed back, said once, and run by a worker that can: no mixed result, no lost point. A sweep of
 * several recordings runs one job per point and recording. A worker signalled twice puts its job back.
 */
import { appendFileSync, copyFileSync, cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { command } from '../../src/cli/backtest.js';
import { runCli } from '../../src/cli/main.js';
import type { CliIO } from '../../src/cli/command.js';
import { queueSweep } from '../../src/backtest/queue/queueSweep.js';
import { parseRedisUrl } from '../../src/backtest/queue/redisUrl.js';
import { loadBacktestConfig } from '../../src/backtest/config.js';
import { runSweep } from '../../src/backtest/sweep.js';
import { gridSchema } from '../../src/backtest/sweepGrid.js';
import { startKancil, type BotProcess } from '../support/botProcess.js';
import { REDIS_SERVER, startRedis, type RedisServer } from '../support/redisServer.js';
import { twoRecordingConfig } from '../support/twoRecordings.js';

const root = path.resolve(import.meta.dirname, '../..');
const mmConfig = path.join(root, 'config/market-maker.yaml');
const PASSWORD = 'pw-s3cret-9f2';

/** CLI output captured, with a wait for a line in it. */
function captureIO(env: Record<string, string> = {}): CliIO & { text(): string; waitFor(re: RegExp): Promise<void> } {
  let text = '';
  const waiters: { re: RegExp; resolve: () => void }[] = [];
  const write = (t: string): void => {
    text += t;
    for (const w of waiters.filter((x) => x.re.test(text))) {
      waiters.splice(waiters.indexOf(w), 1);
      w.resolve();
    }
  };
  return { stdout: write, stderr: write, env, text: () => text, waitFor: (re) => (re.test(text) ? Promise.resolve() : new Promise((resolve) => waiters.push({ re, resolve }))) };
}

/**
 * `kancil worker` with short lock and stalled intervals, so a killed worker's job returns within
 * seconds; its Redis (password included) from KANCIL_REDIS_URL, not its command line.
 */
function startWorker(url: string): BotProcess {
  return startKancil(['worker', '--lock-ms', '2000', '--stalled-ms', '1000'], { KANCIL_REDIS_URL: url });
}

/** A queue sweep's sweep.json without the workers that ran its points: what the embedded pool writes. */
function withoutWorkers(json: string): string {
  const s = JSON.parse(json) as { rows: { ranBy?: unknown }[] };
  for (const r of s.rows) delete r.ranBy;
  return `${JSON.stringify(s, null, 2)}\n`;
}

function countOf(re: RegExp, text: string): Map<string, number> {
  const n = new Map<string, number>();
  for (const m of text.matchAll(re)) n.set(m[1] as string, (n.get(m[1] as string) ?? 0) + 1);
  return n;
}

describe('queue sweep: bad --queue values', () => {
  it('a bad URL or argument prints usage (exit 2); an unreachable Redis is named without its password (exit 1)', async () => {
    const bad = captureIO();
    expect(await command.run([mmConfig, '--sweep', path.join(root, 'config/sma-crossover.grid.yaml'), '--queue', 'http://:secret@127.0.0.1:1'], bad)).toBe(2);
    expect(bad.text()).toContain('invalid --queue="http://:***@127.0.0.1:1"');
    expect(bad.text()).toContain('Usage: kancil backtest');
    const dir = mkdtempSync(path.join(os.tmpdir(), 'kancil-queue-bad-'));
    try {
      const grid = path.join(dir, 'grid.yaml');
      writeFileSync(grid, 'params:\n  spreadBps: [1]\n');
      const down = captureIO();
      expect(await command.run([mmConfig, '--sweep', grid, '--queue', 'redis://:secret@127.0.0.1:1/0', '--out', dir], down)).toBe(1);
      expect(down.text()).toMatch(/redis:\/\/:\*\*\*@127\.0\.0\.1:1\/0: network error: cannot reach Redis: connect ECONNREFUSED/);
      expect(down.text()).not.toContain('secret');
      // --gather collects a queue sweep, --queue runs a sweep: alone, each is a usage error.
      const lone = captureIO();
      expect(await command.run([mmConfig, '--gather'], lone)).toBe(2);
      expect(await command.run([mmConfig, '--queue', 'redis://:secret@127.0.0.1:1'], lone)).toBe(2);
      expect(lone.text()).toContain('invalid --gather=true: needs --queue');
      expect(lone.text()).toContain('invalid --queue="redis://:***@127.0.0.1:1": needs --sweep');
      expect(lone.text()).not.toContain('secret');
      // The worker likewise: usage for a bad URL or option, the URL without its password when unreachable.
      const worker = captureIO();
      expect(await runCli(['worker', '--queue', 'redis://:secret@127.0.0.1:1/x'], worker)).toBe(2);
      expect(await runCli(['worker', '--queue', 'redis://127.0.0.1:1', '--concurrency', '0'], worker)).toBe(2);
      expect(await runCli(['worker'], worker)).toBe(2);
      expect(await runCli(['worker', '--queue', 'redis://:secret@127.0.0.1:1'], worker)).toBe(1);
      expect(worker.text()).toContain('invalid --queue="redis://:***@127.0.0.1:1/x"');
      expect(worker.text()).toContain('invalid --concurrency="0": must be a positive integer');
      expect(worker.text()).toContain('--queue is required');
      expect(worker.text()).toMatch(/kancil worker: redis:\/\/:\*\*\*@127\.0\.0\.1:1: network error: cannot reach Redis: connect ECONNREFUSED/);
      expect(worker.text()).toContain('Usage: kancil worker');
      expect(worker.text()).not.toContain('secret');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe.skipIf(REDIS_SERVER === undefined)(`queue sweep over redis-server${REDIS_SERVER === undefined ? " (skipped: no redis-server on PATH; install Debian's redis-server package)" : ''}`, () => {
  let redis: RedisServer;
  let dir: string;
  const workers: BotProcess[] = [];
  beforeAll(async () => {
    // With a password: no message or log line may show it.
    redis = await startRedis(PASSWORD);
    dir = mkdtempSync(path.join(os.tmpdir(), 'kancil-queue-'));
  }, 30_000);
  afterAll(async () => {
    for (const w of workers) if (w.alive()) w.child.kill('SIGKILL');
    await redis?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('runs across two workers, one killed mid-job; equals the embedded pool; re-gathers without new runs', async () => {
    const grid = path.join(dir, 'grid.yaml');
    writeFileSync(grid, 'strategy: mm\nparams:\n  spreadBps: [1, 2]\n  skewBps: [0, 1]\n');
    const a = startWorker(redis.url);
    const b = startWorker(redis.url);
    workers.push(a, b);
    expect(await Promise.all([a.waitForOutput(/worker on redis/, 30_000), b.waitForOutput(/worker on redis/, 30_000)])).toEqual([true, true]);

    // The password from a file (as a Docker or systemd secret is), the URL on the command line without it.
    const pwFile = path.join(dir, 'redis-password');
    writeFileSync(pwFile, `${PASSWORD}\n`);
    const noPassword = `redis://127.0.0.1:${redis.port}`;
    const io = captureIO({ KANCIL_REDIS_PASSWORD_FILE: pwFile });
    const killed = a.waitForOutput(/job kancil-[0-9a-f]+ started/, 30_000);
    const gathered = command.run([mmConfig, '--sweep', grid, '--queue', noPassword, '--out', path.join(dir, 'queue'), '--quiet'], io);
    expect(await killed).toBe(true);
    a.child.kill('SIGKILL');
    const killedId = [...a.output().matchAll(/job (kancil-[0-9a-f]+) started/g)].at(-1)?.[1];
    expect(await gathered, io.text()).toBe(0);

    // Every job completed exactly once, the killed one by the other worker.
    const completed = countOf(/job (kancil-[0-9a-f]+) completed/g, a.output() + b.output());
    expect(completed.size).toBe(4);
    expect([...completed.values()].every((n) => n === 1)).toBe(true);
    expect(countOf(/job (kancil-[0-9a-f]+) completed/g, b.output()).get(killedId as string)).toBe(1);

    // The same numbers per point as the embedded worker-thread pool (one thread: a second one's boot
    // doubles this step's CPU, which a loaded machine has none to spare for).
    const embedded = captureIO();
    expect(await command.run([mmConfig, '--sweep', grid, '--workers', '1', '--out', path.join(dir, 'embedded'), '--quiet'], embedded)).toBe(0);
    const report = readFileSync(path.join(dir, 'queue/sweep.json'), 'utf8');
    expect(withoutWorkers(report)).toBe(readFileSync(path.join(dir, 'embedded/sweep.json'), 'utf8'));
    expect((JSON.parse(report) as { rows: unknown[]; failed: number }).rows).toHaveLength(4);
    // Each point names the worker that ran it; the killed one's job, the other worker.
    const pids = new Set([a.child.pid, b.child.pid].map((pid) => `${os.hostname()} pid ${pid}`));
    const ranBy = (JSON.parse(report) as { rows: { ranBy?: string[] }[] }).rows.map((r) => r.ranBy ?? []);
    expect(ranBy.every((r) => r.length === 1 && pids.has(r[0] as string)), JSON.stringify(ranBy)).toBe(true);
    expect(readFileSync(path.join(dir, 'queue/sweep.md'), 'utf8')).toContain(`| ran on |`);

    // Re-gathered (--gather, or the same command again): the same report, nothing run again.
    const runs = (): number => (b.output().match(/ started /g) ?? []).length;
    const before = runs();
    for (const extra of [['--gather'], []]) {
      const again = captureIO();
      const out = path.join(dir, `again${extra.length}`);
      expect(await command.run([mmConfig, '--sweep', grid, '--queue', redis.url, '--out', out, '--quiet', ...extra], again)).toBe(0);
      expect(again.text()).toContain('4 jobs, 4 finished already');
      expect(readFileSync(path.join(out, 'sweep.json'), 'utf8')).toBe(report);
    }
    expect(runs()).toBe(before);

    // SIGTERM: the worker stops cleanly.
    b.child.kill('SIGTERM');
    expect(await b.exit).toBe(0);
    expect(b.output()).toContain('worker stopped');
    // The URL is shown, its password never.
    expect(b.output()).toContain(`worker on redis://:***@127.0.0.1:${redis.port}`);
    expect(io.text()).toContain(`queue ${noPassword}: 4 jobs`);
    for (const text of [b.output(), io.text()]) expect(text).not.toContain('warning');
    for (const text of [a.output(), b.output(), io.text(), embedded.text()]) expect(text).not.toContain(PASSWORD);
  }, 120_000);

  it('a worker missing a file hands the job back, says so once, and runs it once the file is there', async () => {
    const data = mkdtempSync(path.join(dir, 'missing-'));
    const recording = path.join(data, 'btcusdt.ndjson.gz');
    copyFileSync(path.join(root, 'backtest-data/btcusdt-sample.ndjson.gz'), recording);
    const cfg = path.join(data, 'mm.yaml');
    writeFileSync(cfg, readFileSync(mmConfig, 'utf8').replace('../backtest-data/btcusdt-sample.ndjson.gz', 'btcusdt.ndjson.gz').replace(/^ {2}output:.*$/m, ''));
    const grid = path.join(data, 'grid.yaml');
    writeFileSync(grid, 'params:\n  spreadBps: [3, 4]\n');
    const io = captureIO();
    const gathered = command.run([cfg, '--sweep', grid, '--queue', redis.url, '--out', path.join(data, 'out'), '--quiet'], io);
    // Enqueued while no worker runs; the recording then disappears from "the worker's machine".
    await io.waitFor(/waiting for workers/);
    rmSync(recording);
    const c = startWorker(redis.url);
    workers.push(c);
    expect(await c.waitForOutput(/handing back jobs this worker cannot run/, 30_000)).toBe(true);
    copyFileSync(path.join(root, 'backtest-data/btcusdt-sample.ndjson.gz'), recording);
    expect(await gathered, io.text()).toBe(0);
    // Said once for the file, however many times its jobs came back.
    expect(c.output().match(/handing back/g)).toHaveLength(1);
    // A password on the command line works, with a warning that ps shows it.
    expect(io.text()).toContain('warning: the Redis password in --queue is visible to every user of this machine (ps)');
    expect(c.output()).toMatch(/data file .*btcusdt\.ndjson\.gz is missing on worker/);
    expect(countOf(/job (kancil-[0-9a-f]+) completed/g, c.output()).size).toBe(2);
    // The first attempt of each job is the one that ran: handing back uses none.
    expect(c.output().match(/\(attempt 1\/3\)/g)).toHaveLength(2);
    c.child.kill('SIGINT');
    expect(await c.exit).toBe(0);
    for (const text of [c.output(), io.text()]) expect(text).not.toContain(PASSWORD);
  }, 90_000);

  it('workers of two builds on one sweep: the other build hands every job back; no mixed result, no lost point', async () => {
    // Another build of kancil: a copy of this one with one engine file changed (as a checkout ten hours older would be).
    const other = mkdtempSync(path.join(dir, 'other-build-'));
    for (const f of ['src', 'strategies', 'package.json', 'package-lock.json']) cpSync(path.join(root, f), path.join(other, f), { recursive: true });
    symlinkSync(path.join(root, 'node_modules'), path.join(other, 'node_modules'));
    appendFileSync(path.join(other, 'src/backtest/Backtest.ts'), '\n// another build\n');
    const old = startKancil(['worker', '--queue', redis.url, '--concurrency', '2'], {}, other);
    workers.push(old);
    expect(await old.waitForOutput(/worker on redis/, 30_000)).toBe(true);
    const grid = path.join(other, 'grid.yaml');
    writeFileSync(grid, 'strategy: mm\nparams:\n  spreadBps: [5, 6, 7]\n');
    const io = captureIO();
    const gathered = command.run([mmConfig, '--sweep', grid, '--queue', redis.url, '--out', path.join(other, 'queue'), '--quiet'], io);
    expect(await old.waitForOutput(/handing back/, 30_000)).toBe(true);
    const good = startWorker(redis.url);
    workers.push(good);
    // Bounded, so a hang fails with what each side said.
    const late = new Promise<string>((r) => setTimeout(() => r('late'), 100_000).unref());
    expect(await Promise.race([gathered, late]), `${io.text()}\n--- other build:\n${old.output()}\n--- this build:\n${good.output()}`).toBe(0);
    expect(old.output()).toMatch(/the sweep was enqueued by kancil \S+ engine [0-9a-f]{12} \(src\), worker .* runs kancil \S+ engine [0-9a-f]{12} \(src\)/);
    expect(old.output().match(/handing back/g)).toHaveLength(1);
    expect(old.output()).not.toMatch(/ started /);
    const report = readFileSync(path.join(other, 'queue/sweep.json'), 'utf8');
    const rows = (JSON.parse(report) as { failed: number; rows: { ranBy?: string[] }[] }).rows;
    expect(rows).toHaveLength(3);
    expect(rows.map((r) => r.ranBy?.join()), old.output() + good.output()).toEqual(rows.map(() => `${os.hostname()} pid ${good.child.pid}`));
    expect(await command.run([mmConfig, '--sweep', grid, '--workers', '2', '--out', path.join(other, 'embedded'), '--quiet'], captureIO())).toBe(0);
    expect(withoutWorkers(report)).toBe(readFileSync(path.join(other, 'embedded/sweep.json'), 'utf8'));
    for (const w of [old, good]) {
      w.child.kill('SIGTERM');
      expect(await w.exit).toBe(0);
    }
  }, 120_000);

  it('a Redis that goes away mid-sweep ends the wait with an error naming it, not a hang', async () => {
    const other = await startRedis(PASSWORD);
    const cfg = loadBacktestConfig(mmConfig);
    const lines: string[] = [];
    const q = queueSweep(cfg, { target: parseRedisUrl(other.url), redisTimeoutMs: 2000, scanMs: 1000, log: (l) => lines.push(l) });
    try {
      const sweep = runSweep(cfg, gridSchema.parse({ strategy: 'mm', params: { spreadBps: [1] } }), { runner: q.runner });
      for (let i = 0; i < 100 && !lines.some((l) => l.includes('waiting for workers')); i++) await new Promise((r) => setTimeout(r, 100));
      await other.stop();
      await expect(sweep).rejects.toThrow(/redis:\/\/:\*\*\*@127\.0\.0\.1:\d+: network error: no answer from Redis for 2 s \(.*ECONNREFUSED.*\); enqueued jobs stay in the queue/);
      expect(lines.join('\n')).not.toContain(PASSWORD);
    } finally {
      await q.close();
      await other.stop();
    }
  }, 60_000);

  it('waiting asks Redis nothing per job: it reads the event stream (200 jobs, no worker)', async () => {
    const own = await startRedis(PASSWORD);
    const cfg = loadBacktestConfig(mmConfig);
    const lines: string[] = [];
    const q = queueSweep(cfg, { target: parseRedisUrl(own.url), log: (l) => lines.push(l) });
    const probe = new Redis({ host: '127.0.0.1', port: own.port, password: PASSWORD });
    const processed = async (): Promise<number> => Number(/total_commands_processed:(\d+)/.exec(await probe.info('stats'))?.[1]);
    try {
      const sweep = runSweep(cfg, gridSchema.parse({ strategy: 'mm', params: { spreadBps: Array.from({ length: 200 }, (_, i) => i + 1) } }), { runner: q.runner });
      sweep.catch(() => undefined);
      for (let i = 0; i < 300 && !lines.some((l) => l.includes('waiting for workers')); i++) await new Promise((r) => setTimeout(r, 100));
      const before = await processed();
      await new Promise((r) => setTimeout(r, 3000));
      // Polling every job twice a second would be about 1,200 calls here; the probe's own INFO calls count too.
      expect((await processed()) - before).toBeLessThan(50);
    } finally {
      probe.disconnect();
      await q.close();
      await own.stop();
    }
  }, 60_000);

  it('two sweeps at once take turns on one worker instead of queueing one behind the other', async () => {
    const own = await startRedis(PASSWORD);
    const data = mkdtempSync(path.join(dir, 'fair-'));
    twoRecordingConfig(data);
    const cfg = path.join(data, 'short.yaml');
    writeFileSync(cfg, readFileSync(mmConfig, 'utf8').replace('../backtest-data/btcusdt-sample.ndjson.gz', path.join(data, 'short.ndjson.gz')).replace(/^ {2}output:.*$/m, ''));
    const gridOf = (name: string, values: number[]): string => {
      const f = path.join(data, `${name}.yaml`);
      writeFileSync(f, `params:\n  spreadBps: [${values.join(', ')}]\n`);
      return f;
    };
    const first = captureIO();
    const a = command.run([cfg, '--sweep', gridOf('a', [11, 12, 13, 14]), '--queue', own.url, '--out', path.join(data, 'a'), '--quiet'], first);
    await first.waitFor(/waiting for workers/);
    const second = captureIO();
    const b = command.run([cfg, '--sweep', gridOf('b', [21, 22]), '--queue', own.url, '--out', path.join(data, 'b'), '--quiet'], second);
    await second.waitFor(/waiting for workers/);
    const w = startKancil(['worker', '--queue', own.url]);
    workers.push(w);
    try {
      expect(await a, first.text()).toBe(0);
      expect(await b, second.text()).toBe(0);
      const order = [...w.output().matchAll(/started \(attempt 1\/3\): mm \{"spreadBps":(\d+)\}/g)].map((m) => Number(m[1]));
      expect(order).toEqual([11, 21, 12, 22, 13, 14]);
    } finally {
      w.child.kill('SIGTERM');
      await w.exit;
      await own.stop();
    }
  }, 120_000);

  it('--status counts a sweep\'s jobs; --cancel removes those not started and stops the command waiting for them', async () => {
    const own = await startRedis(PASSWORD);
    const grid = path.join(dir, 'cancel-grid.yaml');
    writeFileSync(grid, 'strategy: mm\nparams:\n  spreadBps: [31, 32, 33]\n');
    const args = [mmConfig, '--sweep', grid, '--queue', own.url, '--out', path.join(dir, 'cancel'), '--quiet'];
    try {
      const waiting = captureIO();
      const sweep = command.run(args, waiting);
      await waiting.waitFor(/waiting for workers/);
      const status = captureIO();
      expect(await command.run([...args, '--status'], status), status.text()).toBe(0);
      expect(status.text()).toContain(`queue redis://:***@127.0.0.1:${own.port}: this sweep has 3 jobs: 3 waiting`);
      const cancel = captureIO();
      expect(await command.run([...args, '--cancel'], cancel), cancel.text()).toBe(0);
      expect(cancel.text()).toContain('cancelled 3 jobs no worker had started');
      expect(await sweep, waiting.text()).toBe(1);
      expect(waiting.text()).toMatch(/point 0 \{"spreadBps":31\}: cancelled \(kancil backtest/);
      const after = captureIO();
      expect(await command.run([...args, '--status'], after)).toBe(0);
      expect(after.text()).toContain('this sweep has 3 jobs: 3 not in the queue');
      const usage = captureIO();
      expect(await command.run([mmConfig, '--sweep', grid, '--status'], usage)).toBe(2);
      expect(await command.run([...args, '--status', '--cancel'], usage)).toBe(2);
      expect(usage.text()).toContain('invalid --status=true: needs --queue');
      expect(usage.text()).toContain('invalid --cancel=true: cannot go with --status');
    } finally {
      await own.stop();
    }
  }, 90_000);

  it('eachRecording: one job per point and recording, as the embedded pool; a twice-signalled worker puts its job back', async () => {
    const data = mkdtempSync(path.join(dir, 'recordings-'));
    const cfg = twoRecordingConfig(data);
    const grid = path.join(data, 'grid.yaml');
    writeFileSync(grid, 'params:\n  spreadBps: [4]\neachRecording: true\n');
    const d = startWorker(redis.url);
    workers.push(d);
    expect(await d.waitForOutput(/worker on redis/, 30_000)).toBe(true);
    const io = captureIO();
    const started = d.waitForOutput(/job kancil-[0-9a-f]+ started/, 30_000);
    const gathered = command.run([cfg, '--sweep', grid, '--queue', redis.url, '--out', path.join(data, 'queue'), '--quiet'], io);
    expect(await started).toBe(true);
    // SIGINT lets the running job finish; a second one puts it back in the queue and stops at once.
    const finishing = d.waitForOutput(/SIGINT: finishing/, 10_000);
    d.child.kill('SIGINT');
    expect(await finishing).toBe(true);
    d.child.kill('SIGINT');
    expect(await d.exit).toBe(0);
    expect(d.output()).toMatch(/job kancil-[0-9a-f]+ released to the queue/);
    expect(d.output()).not.toContain(' completed ');
    const e = startWorker(redis.url);
    workers.push(e);
    expect(await gathered, io.text()).toBe(0);
    expect(io.text()).toContain('2 jobs, 0 finished already');
    // One thread: booting a second one doubles this step's CPU, and a loaded machine has none to spare.
    expect(await command.run([cfg, '--sweep', grid, '--workers', '1', '--out', path.join(data, 'embedded'), '--quiet'], captureIO())).toBe(0);
    const report = readFileSync(path.join(data, 'queue/sweep.json'), 'utf8');
    expect(withoutWorkers(report)).toBe(readFileSync(path.join(data, 'embedded/sweep.json'), 'utf8'));
    expect((JSON.parse(report) as { rows: { recordings: unknown[] }[] }).rows[0]?.recordings).toHaveLength(2);
    expect(countOf(/job (kancil-[0-9a-f]+) completed/g, e.output()).size).toBe(2);
    e.child.kill('SIGTERM');
    expect(await e.exit).toBe(0);
  }, 120_000);
});
