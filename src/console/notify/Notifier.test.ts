/**
 * Notifications to a fake Telegram Bot API and a webhook, both on loopback: what is sent for
 * fills, failures, state changes, reconnect storms, rejection bursts and the day's end; the rate
 * limit with its "suppressed" line; a 429's retry_after; and that the token and a failing channel
 * never reach the log or the text.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { Decimal, ZERO } from '../../core/decimal.js';
import { RunFeed } from '../feed.js';
import { testRun } from '../testRun.js';
import { telegramChannel, webhookChannel } from './channels.js';
import { CRITICAL_LOG_MESSAGES } from './alerts.js';
import { Notifier, type NotifierOptions } from './Notifier.js';

const TG_TOKEN = '123456:telegram-test-token-abcdefghijk';

interface Fake {
  url: string;
  bodies: Record<string, unknown>[];
  paths: string[];
  answer: (res: http.ServerResponse, n: number) => void;
  close(): Promise<void>;
}

async function fakeServer(answer: Fake['answer']): Promise<Fake> {
  const f: Fake = { url: '', bodies: [], paths: [], answer, close: async () => undefined };
  const server = http.createServer((req, res) => {
    let text = '';
    req.on('data', (c: Buffer) => (text += c.toString()));
    req.on('end', () => {
      f.paths.push(req.url ?? '');
      f.bodies.push(JSON.parse(text) as Record<string, unknown>);
      f.answer(res, f.bodies.length);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  f.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  f.close = () => new Promise((r) => server.close(() => r()));
  return f;
}

const okTelegram = (res: http.ServerResponse): void => void res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true,"result":{}}');
const logs: string[] = [];
const log = { info: (o: object, m: string) => void logs.push(JSON.stringify(o) + m), warn: (o: object, m: string) => void logs.push(JSON.stringify(o) + m), error: (o: object, m: string) => void logs.push(JSON.stringify(o) + m) };
const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const s of open.splice(0)) await s.close();
  logs.length = 0;
});

function setup(over: Partial<NotifierOptions> & { now?: () => number }, channels: NotifierOptions['channels']): { n: Notifier; run: ReturnType<typeof testRun>; feed: RunFeed } {
  const run = testRun();
  const feed = new RunFeed(run, { tickMs: 3_600_000 });
  feed.start();
  const n = new Notifier({ run, feed, channels, events: ['fill', 'failure', 'state', 'reconnects', 'rejections', 'daily'], maxPerMinute: 20, reconnectStorm: { count: 3, windowSec: 60 }, rejectionBurst: { count: 4, windowSec: 60 }, log, ...over });
  n.start();
  open.push({ close: async () => (await n.stop(300), feed.stop()) });
  return { n, run, feed };
}

const until = async (cond: () => boolean): Promise<void> => {
  for (let i = 0; i < 200 && !cond(); i++) await new Promise((r) => setTimeout(r, 10));
  expect(cond()).toBe(true);
};

const fill = { type: 'fill', E: 1, strategy: 'mm', clientId: 'c1', orderId: '9', symbol: 'BTC_USDT', side: 'BUY', tradeId: '5', price: new Decimal('60000.1'), qty: new Decimal('0.002'), quoteQty: new Decimal('120.0002'), commission: ZERO, commissionAsset: 'USDT', isMaker: true } as const;

describe('notifications', () => {
  it('never drops a trading-state change among a flood of fills: every one arrives, in order', async () => {
    const tg = await fakeServer(okTelegram);
    open.push(tg);
    const { run } = setup({ maxPerMinute: 20 }, [telegramChannel(tg.url, TG_TOKEN, '1')]);
    const states = ['HALTED', 'ACTIVE', 'REDUCING', 'ACTIVE', 'HALTED', 'ACTIVE', 'HALTED', 'REDUCING', 'ACTIVE'] as const;
    for (let i = 0; i < 63; i++) {
      run.bus.next({ ...fill, tradeId: String(i) });
      if (i % 7 === 6) run.bus.next({ type: 'tradingState', E: i, state: states[(i - 6) / 7] ?? 'ACTIVE', reason: `change ${(i - 6) / 7}` });
    }
    const lines = (): string[] => tg.bodies.flatMap((b) => String(b.text).split('\n')).filter((l) => l.includes('trading state'));
    await until(() => lines().length >= 9);
    expect(lines().map((l) => /trading state (\w+) \((change \d)\)/.exec(l)?.slice(1).join(' '))).toEqual(states.map((s, i) => `${s} change ${i}`));
  });

  it('sends fills, failures, state changes, reconnect storms and rejection bursts to Telegram and a webhook', async () => {
    const tg = await fakeServer(okTelegram);
    const hook = await fakeServer((res) => void res.writeHead(204).end());
    open.push(tg, hook);
    const { n, run, feed } = setup({}, [telegramChannel(tg.url, TG_TOKEN, '-100200'), webhookChannel(`${hook.url}/hook/secret-path`)]);
    run.bus.next(fill);
    run.strategyList = [{ name: 'mm', symbols: ['BTC_USDT'], state: 'HALTED', reason: 'operator: console halt', failure: { error: 'boom', phase: 'event', t: 5 } }];
    feed.tick();
    run.bus.next({ type: 'tradingState', E: 6, state: 'HALTED', reason: 'operator: all' });
    for (let i = 0; i < 3; i++) run.bus.next({ type: 'connection', E: 7 + i, connection: 'user:type1', status: 'down' });
    for (let i = 0; i < 4; i++) run.bus.next({ type: 'intentRejected', E: 10 + i, strategy: 'mm', intent: { kind: 'cancelAll', strategy: 'mm', intentId: `x${i}` }, reason: i < 3 ? 'TRADING_HALTED' : 'MIN_NOTIONAL', message: 'no' });
    await until(() => n.totals().sent === 14);
    const texts = tg.bodies.flatMap((b) => String(b.text).split('\n'));
    expect(texts[0]).toBe('[test] started: paper run, strategies mm (BTC_USDT); trading ACTIVE (active)');
    expect(texts).toContain('[test] mm BUY 0.002 BTC_USDT @ 60000.1 (maker, fee 0 USDT)');
    expect(texts.map((t) => t.replace('[test] ', ''))).toEqual(expect.arrayContaining(['strategy mm FAILED and was stopped: boom', 'strategy mm trading state HALTED (operator: console halt)', 'run trading state HALTED (operator: all)']));
    expect(texts.some((t) => t.startsWith('[test] reconnect storm: 3 stream disconnects in 60 s'))).toBe(true);
    expect(texts).toContain('[test] rejection burst: 4 intents refused in 60 s (TRADING_HALTED 3, MIN_NOTIONAL 1)');
    expect(tg.bodies[0]).toMatchObject({ chat_id: '-100200' });
    expect(tg.paths[0]).toBe(`/bot${TG_TOKEN}/sendMessage`);
    expect(hook.bodies[0]).toMatchObject({ run: 'test', kind: 'started', priority: 'critical' });
    expect(hook.bodies.find((b) => b.kind === 'fill')).toMatchObject({ run: 'test', kind: 'fill', priority: 'info', data: { price: '60000.1', qty: '0.002' } });
    expect(n.totals()).toEqual({ sent: 14, failed: 0, dropped: 0 });
    // The token is in the Bot API path only: never in a text or the log.
    expect(JSON.stringify(tg.bodies) + JSON.stringify(hook.bodies) + logs.join('')).not.toContain(TG_TOKEN);
  });

  it('holds each channel to maxPerMinute and then says how many it suppressed', async () => {
    const tg = await fakeServer(okTelegram);
    open.push(tg);
    // 60 a minute: a full bucket of 60, then one token a second.
    const { n, run } = setup({ maxPerMinute: 60 }, [telegramChannel(tg.url, TG_TOKEN, '1')]);
    for (let i = 0; i < 65; i++) run.bus.next({ ...fill, tradeId: String(i) });
    expect(n.totals('info').dropped).toBe(5);
    // The start message, 60 fills, then the summary.
    await until(() => tg.bodies.length === 62);
    expect(tg.bodies[61]?.text).toBe('[test] 5 notifications suppressed (more than 60 a minute); see the dashboard or kancil status');
  });

  it('obeys a 429 retry_after and logs failures by channel and status, never the URL', async () => {
    let calls = 0;
    const tg = await fakeServer((res) => {
      calls++;
      if (calls === 1) return void res.writeHead(429, { 'content-type': 'application/json' }).end('{"ok":false,"error_code":429,"description":"Too Many Requests: retry after 1","parameters":{"retry_after":1}}');
      okTelegram(res);
    });
    open.push(tg);
    const { n, run } = setup({ retryBaseMs: 100 }, [telegramChannel(tg.url, TG_TOKEN, '1'), webhookChannel('http://127.0.0.1:1/hook-secret')]);
    const t0 = Date.now();
    run.bus.next(fill);
    run.bus.next({ ...fill, tradeId: '6' });
    // The start message meets the 429; it and both fills go after the second it asked for.
    await until(() => tg.bodies.length === 4);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(900);
    expect(tg.bodies.slice(1).map((b) => String(b.text).slice(0, 20))).toEqual(['[test] started: pape', '[test] mm BUY 0.002 ', '[test] mm BUY 0.002 ']);
    // The webhook has no server: the start message is retried with backoff (critical first, the fills wait behind it).
    await until(() => n.totals('critical').failed >= 2);
    expect(n.counts().find((c) => c.channel === 'webhook' && c.priority === 'info')).toMatchObject({ sent: 0, failed: 0 });
    const text = logs.join('\n');
    expect(text).toContain('telegram: HTTP 429 Too Many Requests: retry after 1');
    expect(text).toContain('webhook: connection failed');
    expect(text).not.toContain('hook-secret');
    expect(text).not.toContain(TG_TOKEN);
  });

  it('sends the summary of the UTC day that ended', async () => {
    const tg = await fakeServer(okTelegram);
    open.push(tg);
    let now = Date.UTC(2026, 10, 26, 23, 59);
    const { n, run } = setup({ now: () => now, events: ['daily'] }, [telegramChannel(tg.url, TG_TOKEN, '1')]);
    run.bus.next(fill);
    run.positionList = [{ strategy: 'mm', symbol: 'BTC_USDT', position: new Decimal('0.002'), cash: new Decimal('-120.0002'), fills: 1, volume: new Decimal('120.0002'), mark: new Decimal('60100') }];
    n.checkDay();
    now = Date.UTC(2026, 10, 27, 0, 0, 30);
    n.checkDay();
    n.checkDay();
    await until(() => tg.bodies.length === 2);
    expect(tg.bodies[1]?.text).toBe('[test] daily summary 2026-11-26 (UTC): 1 fill, PnL USDT +0.1998; 0 open orders; trading ACTIVE');
  });

  it('says when the exchange is unreachable (a stream down past the threshold) and when it is back, both critical', async () => {
    const tg = await fakeServer(okTelegram);
    open.push(tg);
    const { run } = setup({ outageAfterSec: 0.2, maxPerMinute: 1 }, [telegramChannel(tg.url, TG_TOKEN, '1')]);
    for (let i = 0; i < 3; i++) run.bus.next({ ...fill, tradeId: String(i) });
    // A drop that heals within the threshold says nothing.
    run.bus.next({ type: 'connection', E: 1, connection: 'market:type1', status: 'down', reason: 'socket closed' });
    run.bus.next({ type: 'connection', E: 2, connection: 'market:type1', status: 'up' });
    run.bus.next({ type: 'connection', E: 3, connection: 'user:type1', status: 'down', reason: 'socket closed' });
    run.bus.next({ type: 'connection', E: 4, connection: 'user:type1', status: 'resyncing' });
    const texts = (): string[] => tg.bodies.flatMap((b) => String(b.text).split('\n'));
    await until(() => texts().some((t) => t.includes('unreachable')));
    expect(texts().find((t) => t.includes('unreachable'))).toMatch(/^\[test\] exchange unreachable for 0 s: user:type1 resyncing \(socket closed\)$/);
    run.bus.next({ type: 'connection', E: 5, connection: 'user:type1', status: 'up' });
    await until(() => texts().some((t) => t.includes('reachable again')));
    expect(texts().filter((t) => t.includes('reachable')).length).toBe(2);
  });

  it('reports an order of unknown outcome once and how it settled, an order the exchange lost, the daily loss limit once a day, critical log lines', async () => {
    const tg = await fakeServer(okTelegram);
    open.push(tg);
    const { n, run, feed } = setup({}, [telegramChannel(tg.url, TG_TOKEN, '1')]);
    const order = { type: 'orderUpdate', E: 1, strategy: 'mm', clientId: 'c7', orderId: undefined, symbol: 'BTC_USDT', side: 'SELL', orderType: 'LIMIT', price: new Decimal('61000'), quantity: new Decimal('0.01'), cumQty: ZERO, cumQuoteQty: ZERO } as const;
    run.bus.next({ ...order, state: 'PENDING' });
    run.bus.next({ ...order, state: 'UNKNOWN', reason: 'timeout' });
    run.bus.next({ ...order, state: 'UNKNOWN', reason: 'timeout' });
    run.bus.next({ ...order, state: 'CANCELED', reason: 'not found on the exchange' });
    run.bus.next({ ...order, clientId: 'c9', state: 'UNKNOWN', reason: 'open: HTTP 500' });
    run.bus.next({ ...order, clientId: 'c9', state: 'PENDING' });
    const loss = { type: 'intentRejected', E: 2, strategy: 'mm', intent: { kind: 'cancelAll', strategy: 'mm', intentId: 'x' }, reason: 'DAILY_LOSS_LIMIT', message: 'daily PnL -101 reached dailyLossLimit 100: only reducing orders pass' } as const;
    run.bus.next(loss);
    run.bus.next(loss);
    run.bus.next({ ...order, clientId: 'c8', orderId: '12', state: 'NEW' });
    run.bus.next({ ...order, clientId: 'c8', orderId: '12', state: 'EXPIRED', reason: 'ORDER_LOST: 3 lookups answered -2013, no order or trade found' });
    feed.log(JSON.stringify({ level: 50, time: 5, msg: 'reconciliation failed; will retry from the poll loop', reason: 'start' }));
    feed.log(JSON.stringify({ level: 30, time: 6, msg: 'reconciliation failed; will retry from the poll loop' }));
    await until(() => n.totals().sent === 8);
    expect(tg.bodies.flatMap((b) => String(b.text).split('\n')).slice(1)).toEqual([
      '[test] order of unknown outcome: mm SELL 0.01 BTC_USDT @ 61000 (c7): timeout; reconciled by its clientId before anything else is sent for it',
      'order mm SELL 0.01 BTC_USDT @ 61000 (c7) settled as CANCELED (not found on the exchange), executed 0',
      'order of unknown outcome: mm SELL 0.01 BTC_USDT @ 61000 (c9): open: HTTP 500; reconciled by its clientId before anything else is sent for it',
      'order mm SELL 0.01 BTC_USDT @ 61000 (c9) was proven not placed; sent again',
      'strategy mm reached its daily loss limit: daily PnL -101 reached dailyLossLimit 100: only reducing orders pass',
      'order mm SELL 0.01 BTC_USDT @ 61000 (c8) is unknown to the exchange and was closed EXPIRED: ORDER_LOST: 3 lookups answered -2013, no order or trade found; executed 0',
      'reconciliation failed; will retry from the poll loop {"reason":"start"}',
    ]);
  });

  it('says the run stopped, why and what it left, and delivers it before stop() returns', async () => {
    const tg = await fakeServer(okTelegram);
    open.push(tg);
    const { n, run } = setup({}, [telegramChannel(tg.url, TG_TOKEN, '1')]);
    run.positionList = [{ strategy: 'mm', symbol: 'BTC_USDT', position: new Decimal('0.002'), cash: new Decimal('-120.0002'), fills: 1, volume: new Decimal('120.0002'), mark: new Decimal('60100') }];
    n.stopped('operator: SIGTERM');
    await n.stop();
    expect(tg.bodies.map((b) => b.text)).toContain('[test] stopped: operator: SIGTERM; 0 open orders left; PnL USDT +0.1998');
  });
});

describe('critical log messages', () => {
  it('each one is still logged somewhere in src (a renamed message would silently stop alerting)', async () => {
    const { readdirSync, readFileSync } = await import('node:fs');
    const root = new URL('../../', import.meta.url);
    const files = (readdirSync(root, { recursive: true }) as string[]).filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts') && !f.includes('console/notify'));
    const text = files.map((f) => readFileSync(new URL(f, root), 'utf8')).join('\n');
    for (const msg of Object.keys(CRITICAL_LOG_MESSAGES)) {
      // A message built from a template is found by its text before the last word: `open API circuit ${s}`.
      const found = text.includes(`'${msg}'`) || text.includes(`\`${msg.slice(0, msg.lastIndexOf(' ') + 1)}\${`);
      expect(found, msg).toBe(true);
    }
  });
});
