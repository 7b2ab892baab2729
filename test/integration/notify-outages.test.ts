/**
 * Critical alerts through repeated outages: a live run against the sandbox, its console notifying
 * a fake Telegram Bot API on loopback that is itself down for a stretch (HTTP 502). Every stream
 * is dropped five times; every trading-state change the run published must reach the chat, in
 * order, with the start before and the stop after, and each outage reported must have its end reported.
 * A console whose port is taken still sends its alerts.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { TradingStateEvent } from '../../src/bus/events.js';
import { runLogger } from '../../src/cli/run.js';
import { parseRunConfig } from '../../src/cli/runConfig.js';
import { planConsole, startRunConsole, type RunConsole } from '../../src/cli/runConsole.js';
import { RunSession } from '../../src/cli/runSession.js';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/index.js';
import { TEST_ACCOUNTS, testSandboxConfig } from '../../src/sandbox/test-config.js';
import { defineStrategy, type StrategyPlugin } from '../../src/strategy/types.js';
import { logSink, waitFor } from './pipeline-harness.js';

const idle = defineStrategy({ name: 'idle', description: 'test: trades nothing', params: z.object({}), create: () => ({ onEvent: () => undefined }) });
const TOKEN = '4242:notify-outage-test-token';

let sandbox: RunningSandbox;
let session: RunSession;
let consoleRun: RunConsole | undefined;
let server: http.Server;
/** Texts the fake Bot API accepted, one line per alert. */
const received: string[] = [];
let down = false;
let refused = 0;
const states: TradingStateEvent[] = [];
const logText: string[] = [];
let tgUrl = '';
let doc: Record<string, unknown> = {};

beforeAll(async () => {
  server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      if (down) {
        refused++;
        res.writeHead(502).end();
        return;
      }
      const text = String((JSON.parse(body) as { text: unknown }).text);
      received.push(...text.split('\n').map((l) => l.replace(/^\[outages\] /, '')));
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true,"result":{}}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  tgUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  sandbox = await startSandbox(testSandboxConfig(), { quiet: true });
  const { ws_api_url: _published, ...urls } = sandbox.urls;
  doc = {
    mode: 'live',
    name: 'outages',
    exchange: { base_url: urls.base_url, market_url: urls.market_url, depth_url: urls.depth_url, stream_url: urls.stream_url, stream_url_new: urls.stream_url_new },
    strategies: [{ name: 'idle', plugin: 'idle', symbols: ['BTC_IDR'] }],
    storage: { path: ':memory:' },
    run: { timerMs: 0, statusIntervalSec: 60, cancelOnShutdown: true },
    logging: { level: 'info' },
    console: { port: 0, notify: { telegram: { chatId: 7, baseUrl: tgUrl, commands: false }, events: ['fill'], outageAfterSec: 0.05 } },
  };
  const config = parseRunConfig(doc, 'outages.yaml');
  const a = TEST_ACCOUNTS.alice;
  const log = runLogger('info', logSink(logText));
  session = await RunSession.start({ config, endpoints: urls, credentials: { apiKey: a.apiKey, apiSecret: a.secret }, plugins: new Map<string, StrategyPlugin>([['idle', idle]]), log, bookReadyTimeoutMs: 300 });
  session.bus.events$.subscribe((e) => {
    if (e.type === 'tradingState') states.push(e);
  });
  const plan = planConsole(config, false, { KANCIL_TELEGRAM_TOKEN: TOKEN });
  if (!plan) throw new Error('no console plan');
  consoleRun = await startRunConsole(session, { plan, log, requestStop: () => undefined });
}, 30_000);

afterAll(async () => {
  await consoleRun?.close();
  await session.stop('test done');
  await sandbox.stop();
  await new Promise<void>((r) => server.close(() => r()));
});

describe('critical alerts through repeated outages', () => {
  it('delivers every trading-state change in order, each outage and its end, the start and the stop', async () => {
    expect(await waitFor(() => received.some((t) => t.startsWith('started: live run')), 10_000)).toBe(true);
    const active = (): boolean => session.parts.states.state === 'ACTIVE';
    expect(await waitFor(active, 10_000)).toBe(true);
    for (let i = 0; i < 5; i++) {
      // The chat is down through the second and third outages: those alerts wait and are retried.
      down = i === 1 || i === 2;
      const before = states.length;
      expect(sandbox.faults.dropConnections()).toBeGreaterThan(0);
      expect(await waitFor(() => states.length > before && active(), 20_000), logText.join('')).toBe(true);
    }
    down = false;
    // A reconnect's reconcile can halt the run once more after it went active: compare once the
    // states have stopped changing for a while and every one of them reached the chat.
    const stateLines = (): string[] => received.filter((t) => t.startsWith('run trading state'));
    let seen = -1;
    let quietSince = Date.now();
    const settled = (): boolean => {
      if (states.length !== seen) {
        seen = states.length;
        quietSince = Date.now();
      }
      return Date.now() - quietSince >= 1000 && active() && stateLines().length >= states.length;
    };
    expect(await waitFor(settled, 30_000), received.join('\n')).toBe(true);
    const expected = states.map((s) => `run trading state ${s.state} (${s.reason})`);
    expect(expected.length).toBeGreaterThanOrEqual(10);
    expect(stateLines()).toEqual(expected);
    expect(refused).toBeGreaterThan(0);
    // A reconnect quicker than the threshold reports nothing; each outage reported has its end reported.
    const count = (p: string): number => received.filter((t) => t.startsWith(p)).length;
    expect(count('exchange unreachable')).toBeGreaterThan(0);
    expect(await waitFor(() => count('exchange reachable again') === count('exchange unreachable'), 20_000), received.join('\n')).toBe(true);
    await consoleRun?.close('test done');
    consoleRun = undefined;
    expect(received.at(-1)).toMatch(/^stopped: test done; 0 open orders left/);
  }, 120_000);

  it('still notifies when the console cannot listen (its port taken)', async () => {
    const taken = http.createServer();
    await new Promise<void>((r) => taken.listen(0, '127.0.0.1', r));
    const port = (taken.address() as AddressInfo).port;
    try {
      const plan = planConsole(parseRunConfig({ ...doc, console: { port, notify: { telegram: { chatId: 7, baseUrl: tgUrl, commands: false }, events: [] } } }, 'taken.yaml'), false, { KANCIL_TELEGRAM_TOKEN: TOKEN });
      if (!plan) throw new Error('no console plan');
      const before = received.length;
      const handle = await startRunConsole(session, { plan, log: runLogger('info', logSink(logText)), requestStop: () => undefined });
      expect(handle?.url).toBeUndefined();
      expect(logText.join('')).toContain('(notifications and Telegram commands still run)');
      expect(await waitFor(() => received.slice(before).some((t) => t.startsWith('started: live run')), 10_000)).toBe(true);
      await handle?.close('port test');
      expect(received.at(-1)).toMatch(/^stopped: port test;/);
    } finally {
      await new Promise<void>((r) => taken.close(() => r()));
    }
  }, 30_000);
});
