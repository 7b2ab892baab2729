/**
 * The whole live pipeline against the sandbox over loopback: market streams and books, user data
 * stream, strategy runner, risk gate, ledger and order router, composed by RunSession exactly as
 * `kancil run` composes it. A strategy places, gets filled and cancels; a filter violation is
 * refused before any request reaches the exchange (counted at the network); a failing plugin is
 * stopped while the other keeps trading; no secret reaches a log line, nor the operator's console
 * (its page, API, live feed and metrics) or its notifications (webhook and Telegram, faked on loopback).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import { planConsole, startRunConsole, type RunConsole } from '../../src/cli/runConsole.js';
import { LogTap } from '../../src/console/logTap.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { BusEvent } from '../../src/bus/events.js';
import { parseRunConfig } from '../../src/cli/runConfig.js';
import { runLogger } from '../../src/cli/run.js';
import { RunSession } from '../../src/cli/runSession.js';
import type { RunSummary } from '../../src/cli/runStatus.js';
import { Decimal } from '../../src/core/decimal.js';
import { resolveSandboxConfig, startSandbox, type RunningSandbox } from '../../src/sandbox/index.js';
import { defineStrategy, type StrategyPlugin } from '../../src/strategy/types.js';
import { ALICE, countingProxy, logSink, sandboxDoc, waitFor, type CountingProxy } from './pipeline-harness.js';

/** What the test strategy saw. */
const seen: BusEvent[] = [];
const ids: { offTick?: string; taker?: string; resting?: string } = {};

const trader = defineStrategy({
  name: 'trader',
  description: 'test: one off-tick order, one taker that fills, one resting order it cancels',
  params: z.object({}),
  create(ctx) {
    let placed = false;
    return {
      onEvent(e) {
        seen.push(e);
        const book = ctx.book('BTC_IDR');
        if (!placed && e.type === 'timer' && book?.ready) {
          const ask = book.bestAsk();
          if (!ask) return;
          placed = true;
          // Off the 1 IDR tick: the risk checker must refuse it before any request.
          ids.offTick = ctx.place({ symbol: 'BTC_IDR', side: 'BUY', orderType: 'LIMIT', timeInForce: 'GTC', price: new Decimal('900000000.5'), quantity: new Decimal('0.001') });
          ids.taker = ctx.place({ symbol: 'BTC_IDR', side: 'BUY', orderType: 'LIMIT', timeInForce: 'IOC', price: ask.price.plus(1000), quantity: new Decimal('0.0001') });
          ids.resting = ctx.place({ symbol: 'BTC_IDR', side: 'BUY', orderType: 'LIMIT', timeInForce: 'GTC', price: new Decimal('900000000'), quantity: new Decimal('0.001') });
        }
        if (e.type === 'orderUpdate' && e.clientId === ids.resting && e.state === 'NEW') ctx.cancel('BTC_IDR', e.clientId);
      },
    };
  },
});

const broken = defineStrategy({
  name: 'broken',
  description: 'test: throws on its first timer',
  params: z.object({}),
  create() {
    return {
      onEvent(e) {
        if (e.type === 'timer') throw new Error('plugin bug');
      },
    };
  },
});

let sandbox: RunningSandbox;
let proxy: CountingProxy;
let session: RunSession;
let summary: RunSummary;
const logText: string[] = [];
/** Everything the console served and every notification body, for the secret scan. */
const consoleText: string[] = [];
const notified: string[] = [];
const CONSOLE_TOKEN = 'pipeline-live-console-token-0123456789';
const TG_TOKEN = '987654:pipeline-live-telegram-token-xyz';
let hooks: http.Server;
let consoleH: RunConsole | undefined;

beforeAll(async () => {
  sandbox = await startSandbox(resolveSandboxConfig(sandboxDoc({ synthetic: true }), 'pipeline-live', process.cwd()));
  proxy = await countingProxy(sandbox.urls.base_url);
  // One loopback server stands for the webhook receiver and the Telegram Bot API.
  hooks = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      notified.push(body);
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true,"result":{}}');
    });
  });
  await new Promise<void>((r) => hooks.listen(0, '127.0.0.1', r));
  const hookUrl = `http://127.0.0.1:${(hooks.address() as AddressInfo).port}`;
  const config = parseRunConfig(
    {
      mode: 'live',
      name: 'pipeline-live',
      exchange: { base_url: proxy.url, market_url: sandbox.urls.market_url, stream_url: sandbox.urls.stream_url },
      strategies: [
        { name: 'trader', plugin: 'trader', symbols: ['BTC_IDR'], budget: { IDR: '10000000000', BTC: '1' } },
        { name: 'broken', plugin: 'broken', symbols: ['BTC_IDR'] },
      ],
      storage: { path: ':memory:' },
      run: { timerMs: 100, statusIntervalSec: 1, cancelOnShutdown: true },
      logging: { level: 'debug' },
      console: { port: 0, notify: { webhook: true, telegram: { chatId: '42', baseUrl: hookUrl }, maxPerMinute: 100, rejectionBurst: { count: 1, windowSec: 60 } } },
    },
    'pipeline-live.yaml',
  );
  const plan = planConsole(config, false, { KANCIL_CONSOLE_TOKEN: CONSOLE_TOKEN, KANCIL_WEBHOOK_URL: `${hookUrl}/hook/secret-part`, KANCIL_TELEGRAM_TOKEN: TG_TOKEN });
  if (!plan) throw new Error('no console plan');
  const tap = new LogTap();
  session = await RunSession.start({
    config,
    endpoints: { ...sandbox.urls, base_url: proxy.url },
    credentials: { apiKey: ALICE.apiKey, apiSecret: ALICE.secret, legacyKey: ALICE.apiKey, legacySecret: ALICE.secret },
    plugins: new Map<string, StrategyPlugin>([
      ['trader', trader],
      ['broken', broken],
    ]),
    log: runLogger('debug', logSink(logText), undefined, tap.stream),
    bookReadyTimeoutMs: 5000,
  });
  consoleH = await startRunConsole(session, { plan, log: runLogger('debug', logSink(logText)), tap, requestStop: () => undefined });
  await waitFor(() => ids.resting !== undefined && seen.some((e) => e.type === 'orderUpdate' && e.clientId === ids.resting && e.state === 'CANCELED') && seen.some((e) => e.type === 'fill'), 10_000);
  await waitFor(() => notified.some((n) => n.includes('"kind":"fill"')) && notified.filter((n) => n.includes('FAILED and was stopped')).length === 2, 5000);
  for (const p of ['/', '/api/snapshot', '/api/status', '/api/orders', '/api/fills', '/api/intents', '/api/balances', '/metrics']) {
    const r = await request(`${consoleH?.url ?? ''}${p}`, { headers: { authorization: `Bearer ${CONSOLE_TOKEN}` } });
    consoleText.push(`${r.statusCode} ${p} ${await r.body.text()}`);
  }
  summary = await session.stop('test done');
  await consoleH?.close();
}, 30_000);

afterAll(async () => {
  await consoleH?.close();
  await new Promise((r) => hooks.close(r));
  await proxy.close();
  await sandbox.stop();
});

describe('live pipeline against the sandbox', () => {
  it('a strategy places, gets filled and cancels; ledger and exchange agree', () => {
    const fills = seen.filter((e) => e.type === 'fill');
    expect(fills.length).toBeGreaterThan(0);
    expect(fills.every((f) => f.type === 'fill' && f.clientId === ids.taker)).toBe(true);
    const states = seen.filter((e) => e.type === 'orderUpdate' && e.clientId === ids.resting).map((e) => (e.type === 'orderUpdate' ? e.state : ''));
    expect(states).toContain('NEW');
    expect(states.at(-1)).toBe('CANCELED');
    const onExchange = sandbox.engine.allOrders(ALICE.id, 'BTC_IDR');
    expect(onExchange.find((o) => o.clientId === ids.resting)?.status).toBe('CANCELED');
    const taker = onExchange.find((o) => o.clientId === ids.taker);
    const filledQty = fills.reduce((a, f) => (f.type === 'fill' ? a.plus(f.qty) : a), new Decimal(0));
    expect(taker?.executedQty.eq(filledQty)).toBe(true);
    expect(summary.fills).toBe(fills.length);
  });

  it('refuses a filter violation before any request reaches the exchange', () => {
    const rejected = seen.find((e) => e.type === 'intentRejected');
    expect(rejected?.type === 'intentRejected' && rejected.reason).toBe('PRICE_FILTER');
    expect(rejected?.type === 'intentRejected' && rejected.intent.kind === 'place' && rejected.intent.clientId).toBe(ids.offTick);
    // Two orders were sent (taker and resting), never the off-tick one.
    expect(proxy.count('POST', '/open/v1/orders')).toBe(2);
    expect(sandbox.engine.allOrders(ALICE.id, 'BTC_IDR').some((o) => o.clientId === ids.offTick)).toBe(false);
  });

  it('stops a failing plugin and keeps the others running', () => {
    expect(summary.failures.map((f) => f.strategy)).toEqual(['broken']);
    expect(summary.failures[0]?.error).toMatch(/plugin bug/);
    // The trader kept receiving events after the broken plugin failed on the first timer.
    expect(seen.filter((e) => e.type === 'timer').length).toBeGreaterThan(1);
  });

  it('never writes a secret or key to the logs', () => {
    const all = logText.join('');
    expect(all.length).toBeGreaterThan(1000);
    expect(all).not.toContain(ALICE.secret);
    expect(all).not.toContain(ALICE.apiKey);
  });

  it("never puts a secret, a key or a token in the console's page, API, metrics or notifications", () => {
    expect(consoleText.every((t) => t.startsWith('200 '))).toBe(true);
    const served = consoleText.join('\n');
    expect(served).toContain('kancil_fills_total');
    expect(served).toContain('kancil_request_weight_used');
    expect(served).toContain('"strategy":"trader"');
    // Webhook and Telegram both got the fill, the failure and the rejection.
    expect(notified.filter((n) => n.includes('FAILED and was stopped: plugin bug')).length).toBe(2);
    expect(notified.some((n) => n.includes('"chat_id":"42"') && n.includes('trader BUY'))).toBe(true);
    expect(notified.some((n) => n.includes('rejection burst'))).toBe(true);
    const all = served + notified.join('\n') + logText.join('');
    for (const secret of [ALICE.secret, ALICE.apiKey, CONSOLE_TOKEN, TG_TOKEN, 'secret-part']) expect(all).not.toContain(secret);
  });
});
