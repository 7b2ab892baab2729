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
  open.push({ close: async () => (await n.stop(), feed.stop()) });
  return { n, run, feed };
}

const until = async (cond: () => boolean): Promise<void> => {
  for (let i = 0; i < 200 && !cond(); i++) await new Promise((r) => setTimeout(r, 10));
  expect(cond()).toBe(true);
};

const fill = { type: 'fill', E: 1, strategy: 'mm', clientId: 'c1', orderId: '9', symbol: 'BTC_USDT', side: 'BUY', tradeId: '5', price: new Decimal('60000.1'), qty: new Decimal('0.002'), quoteQty: new Decimal('120.0002'), commission: ZERO, commissionAsset: 'USDT', isMaker: true } as const;

describe('notifications', () => {
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
    await until(() => n.stats.sent === 12);
    const texts = tg.bodies.map((b) => String(b.text));
    expect(texts[0]).toBe('[test] mm BUY 0.002 BTC_USDT @ 60000.1 (maker, fee 0 USDT)');
    expect(texts).toContain('[test] strategy mm FAILED and was stopped: boom');
    expect(texts).toContain('[test] strategy mm trading state HALTED (operator: console halt)');
    expect(texts).toContain('[test] run trading state HALTED (operator: all)');
    expect(texts.some((t) => t.startsWith('[test] reconnect storm: 3 stream disconnects in 60 s'))).toBe(true);
    expect(texts).toContain('[test] rejection burst: 4 intents refused in 60 s (TRADING_HALTED 3, MIN_NOTIONAL 1)');
    expect(tg.bodies[0]).toMatchObject({ chat_id: '-100200' });
    expect(tg.paths[0]).toBe(`/bot${TG_TOKEN}/sendMessage`);
    expect(hook.bodies.map((b) => b.kind)).toEqual(tg.bodies.map((_, i) => hook.bodies[i]?.kind));
    expect(hook.bodies[0]).toMatchObject({ run: 'test', kind: 'fill', data: { price: '60000.1', qty: '0.002' } });
    expect(n.stats).toEqual({ sent: 12, failed: 0, suppressed: 0 });
    // The token is in the Bot API path only: never in a text or the log.
    expect(JSON.stringify(tg.bodies) + JSON.stringify(hook.bodies) + logs.join('')).not.toContain(TG_TOKEN);
  });

  it('holds each channel to maxPerMinute and then says how many it suppressed', async () => {
    const tg = await fakeServer(okTelegram);
    open.push(tg);
    // 60 a minute: a full bucket of 60, then one token a second.
    const { n, run } = setup({ maxPerMinute: 60 }, [telegramChannel(tg.url, TG_TOKEN, '1')]);
    for (let i = 0; i < 65; i++) run.bus.next({ ...fill, tradeId: String(i) });
    expect(n.stats.suppressed).toBe(5);
    await until(() => tg.bodies.length === 60);
    for (let i = 0; i < 300 && tg.bodies.length < 61; i++) await new Promise((r) => setTimeout(r, 10));
    expect(tg.bodies).toHaveLength(61);
    expect(tg.bodies[60]?.text).toBe('[test] 5 notifications suppressed (more than 60 a minute); see the dashboard or kancil status');
  });

  it('obeys a 429 retry_after and logs failures by channel and status, never the URL', async () => {
    let calls = 0;
    const tg = await fakeServer((res) => {
      calls++;
      if (calls === 1) return void res.writeHead(429, { 'content-type': 'application/json' }).end('{"ok":false,"error_code":429,"description":"Too Many Requests: retry after 1","parameters":{"retry_after":1}}');
      okTelegram(res);
    });
    open.push(tg);
    const { n, run } = setup({}, [telegramChannel(tg.url, TG_TOKEN, '1'), webhookChannel('http://127.0.0.1:1/hook-secret')]);
    const t0 = Date.now();
    run.bus.next(fill);
    run.bus.next({ ...fill, tradeId: '6' });
    await until(() => tg.bodies.length === 2);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(900);
    await until(() => n.stats.failed === 3);
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
    await until(() => tg.bodies.length === 1);
    expect(tg.bodies[0]?.text).toBe('[test] daily summary 2026-11-26 (UTC): 1 fills, PnL USDT +0.1998; 0 open orders; trading ACTIVE');
  });
});
