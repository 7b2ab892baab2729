/**
 * A live `kancil run` (child process) whose every WebSocket is dropped at once by the exchange
 * must stay up, reconnect and keep managing its orders: trading goes on after the drop, and a
 * SIGTERM then cancels what rests and exits 0. With all its timers unref'd and no socket open,
 * the process used to leave the event loop empty and exit at once (code 13), orders unmanaged.
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
let configFile: string;
const bots: BotProcess[] = [];

beforeAll(async () => {
  sandbox = await startSandbox(resolveSandboxConfig(sandboxDoc({ synthetic: true }), 'run-sockets-drop', process.cwd()));
  dir = mkdtempSync(path.join(tmpdir(), 'kancil-drop-'));
  configFile = path.join(dir, 'run.yaml');
  writeFileSync(
    configFile,
    stringify({
      mode: 'live',
      name: 'drop',
      exchange: { base_url: sandbox.urls.base_url, market_url: sandbox.urls.market_url, stream_url: sandbox.urls.stream_url, ws_api_url: sandbox.urls.ws_api_url, recvWindow: 1000 },
      strategies: [{ name: 'churn', plugin: path.join(here, 'pipeline-restart-plugin.ts'), symbols: ['BTC_IDR'], budget: { IDR: '100000000000', BTC: '10' } }],
      storage: { path: path.join(dir, 'ledger.db') },
      run: { timerMs: 50, statusIntervalSec: 60, cancelOnShutdown: true },
      logging: { level: 'info' },
    }),
  );
});

afterAll(async () => {
  for (const b of bots) if (b.alive()) b.child.kill('SIGKILL');
  await sandbox.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('a SIGTERM while the run starts', () => {
  it('stops it gracefully once started (exit 0), instead of the default kill', async () => {
    const bot = startBot(configFile, { KANCIL_API_KEY: ALICE.apiKey, KANCIL_API_SECRET: ALICE.secret });
    bots.push(bot);
    expect(await bot.waitForOutput(/reconciling with the exchange/, 20_000), bot.output()).toBe(true);
    bot.child.kill('SIGTERM');
    expect(await bot.exit, bot.output()).toBe(0);
    expect(bot.child.signalCode).toBeNull();
    expect(sandbox.engine.openOrders(ALICE.id, 'BTC_IDR')).toHaveLength(0);
  }, 40_000);
});

describe('every WebSocket dropped at once', () => {
  it('stays up, reconnects, keeps trading, and a SIGTERM then cancels and exits 0', async () => {
    const bot = startBot(configFile, { KANCIL_API_KEY: ALICE.apiKey, KANCIL_API_SECRET: ALICE.secret });
    bots.push(bot);
    const trades = (): number => sandbox.engine.accountTrades(ALICE.id, 'BTC_IDR', { limit: 1000 }).length;
    expect(await waitFor(() => trades() >= 4 || !bot.alive(), 25_000), bot.output()).toBe(true);
    expect(bot.alive(), bot.output()).toBe(true);
    const dropped = sandbox.faults.dropConnections();
    expect(dropped).toBeGreaterThanOrEqual(2);
    const atDrop = trades();
    // The exit came within milliseconds; two seconds is far past it and past the first reconnect.
    await new Promise((r) => setTimeout(r, 2000));
    expect(bot.alive(), bot.output()).toBe(true);
    expect(await waitFor(() => trades() >= atDrop + 4 || !bot.alive(), 20_000), bot.output()).toBe(true);
    expect(bot.output()).toMatch(/reconnected/);
    bot.child.kill('SIGTERM');
    expect(await bot.exit, bot.output()).toBe(0);
    expect(sandbox.engine.openOrders(ALICE.id, 'BTC_IDR')).toHaveLength(0);
  }, 60_000);
});
