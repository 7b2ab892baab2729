/**
 * Start-up of a live `kancil run` (child process) against an exchange that is not available: a
 * maintenance or a ban is waited out (bounded) and the bot then trades; start-up reconciliation
 * that keeps timing out ends in a non-zero exit with a message naming the step, never a hang; a
 * stop that cannot cancel the bot's orders exits 3, so a supervisor starts it again to reconcile.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { resolveSandboxConfig, startSandbox, type RunningSandbox } from '../../src/sandbox/index.js';
import { startBot, type BotProcess } from '../support/botProcess.js';
import { ALICE, sandboxDoc, waitFor } from './pipeline-harness.js';

const here = path.dirname(fileURLToPath(import.meta.url));
let sandbox: RunningSandbox;
let dir: string;
const bots: BotProcess[] = [];
const env = { KANCIL_API_KEY: ALICE.apiKey, KANCIL_API_SECRET: ALICE.secret };

beforeAll(async () => {
  sandbox = await startSandbox(resolveSandboxConfig(sandboxDoc({ synthetic: true }), 'run-startup', process.cwd()));
  dir = mkdtempSync(path.join(tmpdir(), 'kancil-startup-'));
});

afterAll(async () => {
  for (const b of bots) if (b.alive()) b.child.kill('SIGKILL');
  await sandbox.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** A live run config against the sandbox, its own ledger. */
function config(name: string, opts: { timeoutMs?: number; startupWaitSec?: number } = {}): string {
  const file = path.join(dir, `${name}.yaml`);
  writeFileSync(
    file,
    stringify({
      mode: 'live',
      name,
      exchange: { base_url: sandbox.urls.base_url, market_url: sandbox.urls.market_url, stream_url: sandbox.urls.stream_url, ws_api_url: sandbox.urls.ws_api_url, recvWindow: 1000, ...(opts.timeoutMs !== undefined ? { timeoutMs: opts.timeoutMs } : {}) },
      strategies: [{ name: 'churn', plugin: path.join(here, 'pipeline-restart-plugin.ts'), symbols: ['BTC_IDR'], budget: { IDR: '1000000000', BTC: '1' } }],
      storage: { path: path.join(dir, `${name}.db`) },
      run: { timerMs: 50, statusIntervalSec: 60, cancelOnShutdown: true, ...(opts.startupWaitSec !== undefined ? { startupWaitSec: opts.startupWaitSec } : {}) },
      logging: { level: 'info' },
    }),
  );
  return file;
}

/** The forced ban's length: short, as the bot must wait all of it. */
const BAN_SEC = 3;

/** Starts a bot while `fault` holds, lifts it after `holdMs`; the bot must then trade and stop cleanly. Its output. */
async function waitsOut(name: string, fault: () => void, lift: () => void, holdMs: number): Promise<string> {
  fault();
  const bot = startBot(config(name), env);
  bots.push(bot);
  try {
    // Long enough for a slow start (tsx, a loaded machine) to meet the fault.
    expect(await waitFor(() => /failed for now; asking again/.test(bot.output()) || !bot.alive(), 30_000), bot.output()).toBe(true);
    await new Promise((r) => setTimeout(r, holdMs));
    expect(bot.alive(), bot.output()).toBe(true);
  } finally {
    lift();
  }
  expect(await waitFor(() => /"msg":"running"/.test(bot.output()) || !bot.alive(), 40_000), bot.output()).toBe(true);
  await new Promise((r) => setTimeout(r, 500));
  expect(bot.alive(), bot.output()).toBe(true);
  bot.child.kill('SIGTERM');
  expect(await bot.exit, bot.output()).toBe(0);
  return bot.output();
}

describe('live start-up against an unavailable exchange', () => {
  it('waits out a maintenance, then runs', async () => {
    await waitsOut(
      'maintenance',
      () => sandbox.faults.setMaintenance('all'),
      () => sandbox.faults.setMaintenance(undefined),
      1500,
    );
  }, 90_000);

  it('waits out a 418 ban for its Retry-After, then runs', async () => {
    // A 3 s ban from whenever the bot first asks (kept re-armed until then, as its start-up time
    // varies): the wait is the bot's reading of Retry-After, not a slow start.
    const ban = (): void => sandbox.faults.forceRateLimit(418, BAN_SEC);
    let rearm: NodeJS.Timeout | undefined;
    const arm = (): void => {
      ban();
      rearm = setInterval(ban, 100);
    };
    const output = await waitsOut('ban', arm, () => clearInterval(rearm), 0);
    // The first refusal's wait is its Retry-After (at least 2 s), not the 0.5 s backoff of a 5XX.
    const waitMs = Number(/"waitMs":(\d+)[^\n]*failed for now; asking again/.exec(output)?.[1]);
    expect(waitMs, output).toBeGreaterThanOrEqual((BAN_SEC - 1) * 1000);
  }, 90_000);

  it('start-up reconciliation that keeps timing out: bounded retries, then exit 1 naming the step', async () => {
    sandbox.faults.blackhole({ scope: 'open', pathPrefix: '/open/v1/orders' });
    try {
      const bot = startBot(config('blackhole', { timeoutMs: 300, startupWaitSec: 3 }), env);
      bots.push(bot);
      // Only a guard against a hang: the bound is the run's own count below, which a slow boot
      // on a loaded machine (tsx, before the session starts) does not stretch.
      const code = await Promise.race([bot.exit, new Promise<'hung'>((r) => setTimeout(() => r('hung'), 55_000))]);
      expect(code, bot.output()).toBe(1);
      expect(bot.output()).toMatch(/could not start: start-up reconciliation still failing after \d+ s of retries/);
      // Its 3 s of start-up wait, and the attempt under way then: not retried on and on.
      expect(Number(/still failing after (\d+) s of retries/.exec(bot.output())?.[1]), bot.output()).toBeLessThanOrEqual(10);
    } finally {
      sandbox.faults.clear();
    }
  }, 60_000);

  it('a stop whose cancels the exchange refuses exits 3 (orders left), not 0', async () => {
    const bot = startBot(config('left'), env);
    bots.push(bot);
    try {
      expect(await waitFor(() => /"msg":"running"/.test(bot.output()) || !bot.alive(), 40_000), bot.output()).toBe(true);
      const before = sandbox.engine.openOrders(ALICE.id, 'BTC_IDR').length;
      expect(await waitFor(() => sandbox.engine.openOrders(ALICE.id, 'BTC_IDR').length > before || !bot.alive(), 20_000), bot.output()).toBe(true);
      sandbox.faults.setMaintenance('all');
      bot.child.kill('SIGTERM');
      expect(await bot.exit, bot.output()).toBe(3);
      expect(bot.output()).toMatch(/still live or unresolved on the exchange/);
    } finally {
      sandbox.faults.setMaintenance(undefined);
    }
    // Started again, it reconciles and adopts them; its stop cancels them and exits 0.
    const again = startBot(config('left'), env);
    bots.push(again);
    expect(await waitFor(() => /"msg":"running"/.test(again.output()) || !again.alive(), 40_000), again.output()).toBe(true);
    // Its signal handlers are in before the session starts (run.ts): a SIGTERM right at "running" is a graceful stop.
    again.child.kill('SIGTERM');
    expect(await again.exit, again.output()).toBe(0);
    expect(sandbox.engine.openOrders(ALICE.id, 'BTC_IDR')).toHaveLength(0);
  }, 120_000);
});
