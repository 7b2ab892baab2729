/**
 * Operator commands while a run stops: a live run against the sandbox with its console (HTTP API
 * and Telegram commands on a fake Bot API), the stop held at the router until the test lets it go.
 * From the moment the stop begins every command is refused (409, "stopping: command refused") and
 * writes nothing, during the stop and after the ledger has closed, while the reads keep answering
 * until the console closes (as `kancil run` closes it: after the session's stop).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'undici';
import { z } from 'zod';
import { runLogger } from '../../src/cli/run.js';
import { parseRunConfig } from '../../src/cli/runConfig.js';
import { planConsole, startRunConsole, type RunConsole } from '../../src/cli/runConsole.js';
import { RunSession } from '../../src/cli/runSession.js';
import { fakeBotApi, type FakeBotApi } from '../../src/console/notify/fakeBotApi.js';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/index.js';
import { TEST_ACCOUNTS, testSandboxConfig } from '../../src/sandbox/test-config.js';
import { LedgerReader } from '../../src/store/LedgerReader.js';
import { defineStrategy, type StrategyPlugin } from '../../src/strategy/types.js';
import { logSink, waitFor } from './pipeline-harness.js';

const idle = defineStrategy({ name: 'idle', description: 'test: trades nothing', params: z.object({}), create: () => ({ onEvent: () => undefined }) });
const TOKEN = 'console-stop-test-token-0123456789';
const BOT_TOKEN = '4343:console-stop-bot-token';
const COMMANDS = ['/api/halt', '/api/reduce', '/api/resume', '/api/cancel-all', '/api/stop', '/api/strategies/idle/halt', '/api/strategies/idle/cancel-all'];
const READS = ['/api/status', '/api/fills', '/api/daily', '/api/snapshot', '/api/orders', '/api/positions', '/metrics'];

const dir = mkdtempSync(path.join(tmpdir(), 'kancil-console-stop-'));
const db = path.join(dir, 'stop.db');
let sandbox: RunningSandbox;
let bot: FakeBotApi;
let session: RunSession;
let handle: RunConsole | undefined;
let base = '';
/** Lets a held stop go on (the test's own, or afterAll after a failure). */
let release = (): void => undefined;
const logText: string[] = [];

beforeAll(async () => {
  bot = await fakeBotApi(BOT_TOKEN);
  sandbox = await startSandbox(testSandboxConfig(), { quiet: true });
  const { ws_api_url: _published, ...urls } = sandbox.urls;
  const config = parseRunConfig(
    {
      mode: 'live',
      name: 'stopping',
      exchange: { base_url: urls.base_url, market_url: urls.market_url, depth_url: urls.depth_url, stream_url: urls.stream_url, stream_url_new: urls.stream_url_new },
      strategies: [{ name: 'idle', plugin: 'idle', symbols: ['BTC_IDR'] }],
      storage: { path: db },
      run: { timerMs: 0, statusIntervalSec: 60, cancelOnShutdown: true },
      logging: { level: 'info' },
      console: { port: 0, notify: { telegram: { chatId: 7, baseUrl: bot.url, commands: true }, events: [] } },
    },
    'stopping.yaml',
  );
  const a = TEST_ACCOUNTS.alice;
  const log = runLogger('info', logSink(logText));
  session = await RunSession.start({ config, endpoints: urls, credentials: { apiKey: a.apiKey, apiSecret: a.secret }, plugins: new Map<string, StrategyPlugin>([['idle', idle]]), log, bookReadyTimeoutMs: 300 });
  const plan = planConsole(config, false, { KANCIL_CONSOLE_TOKEN: TOKEN, KANCIL_TELEGRAM_TOKEN: BOT_TOKEN });
  if (!plan) throw new Error('no console plan');
  handle = await startRunConsole(session, { plan, log, requestStop: () => undefined });
  base = handle?.url ?? '';
}, 30_000);

afterAll(async () => {
  release();
  await handle?.close();
  await session.stop('test done');
  await sandbox.stop();
  await bot.close();
  rmSync(dir, { recursive: true, force: true });
});

async function call(p: string, method: 'GET' | 'POST' = 'GET'): Promise<{ status: number; text: string }> {
  const r = await request(`${base}${p}`, { method, headers: { authorization: `Bearer ${TOKEN}` } });
  return { status: r.statusCode, text: await r.body.text() };
}

/** Sends one chat command and returns the bot's reply to it (the alerts in the same chat carry the run's name). */
async function say(text: string): Promise<string> {
  const before = bot.sent.length;
  const reply = (): string | undefined => bot.sent.slice(before).find((s) => !s.text.startsWith('[stopping] '))?.text;
  bot.say(7, text);
  expect(await waitFor(() => reply() !== undefined, 10_000), `no reply to ${text}`).toBe(true);
  return reply() ?? '';
}

/** Every command refused in words, every read answered. */
async function expectRefusedWhileReadsAnswer(when: string): Promise<void> {
  for (const c of COMMANDS) {
    const r = await call(c, 'POST');
    expect([c, when, r.status, r.text]).toEqual([c, when, 409, JSON.stringify({ error: 'stopping: command refused (the run is stopping: operator test stop)' })]);
  }
  for (const p of READS) expect([p, when, (await call(p)).status]).toEqual([p, when, 200]);
  for (const c of ['/halt', '/resume', '/stop now', '/halt idle why']) expect([c, when, await say(c)]).toEqual([c, when, 'stopping: command refused (the run is stopping: operator test stop)']);
  expect(await say('/status')).toMatch(/^stopping \(live\): trading /);
  expect(await say('/daily')).toBe('no fills in this run yet');
}

describe('console commands while the run stops', () => {
  it('refuses every command once the stop has begun, writes nothing, and keeps the reads answering', async () => {
    expect(base).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    // Commands act before the stop: the refusals below are the stop's doing.
    expect((await call('/api/strategies/idle/halt', 'POST')).status).toBe(200);
    expect(await say('/resume idle back')).toBe('strategy idle: ACTIVE');
    const router = session.router;
    if (!router) throw new Error('a live run has a router');
    // The stop is held where it awaits the router, the ledger still open.
    const stopRouter = router.stop.bind(router);
    const held = new Promise<void>((r) => (release = r));
    let reached = (): void => undefined;
    const atHold = new Promise<void>((r) => (reached = r));
    router.stop = async () => {
      reached();
      await held;
      return stopRouter();
    };
    const stopped = session.stop('operator test stop');
    await atHold;
    await expectRefusedWhileReadsAnswer('during the stop');
    release();
    await stopped;
    // The ledger is closed; the console is not yet (it closes after the session's stop).
    await expectRefusedWhileReadsAnswer('after the ledger closed');
    expect(logText.join('')).not.toContain('database connection is not open');
    await handle?.close('operator test stop');
    handle = undefined;

    const reader = LedgerReader.open(db);
    try {
      const lines = reader.journal(['console', 'operator', 'stop'], 100);
      expect(lines.map((l) => [l.kind, (l.data as { command?: string; state?: string }).command ?? (l.data as { state?: string }).state ?? (l.data as { reason?: string }).reason])).toEqual([
        ['console', 'halt'],
        ['operator', 'HALTED'],
        ['console', 'resume'],
        ['operator', 'ACTIVE'],
        ['stop', 'operator test stop'],
      ]);
    } finally {
      reader.close();
    }
  }, 60_000);
});
