/**
 * The console server over loopback with a fake run: read access with and without a token, the
 * commands' checks and journal, the live feed as server-sent events, and bad requests named.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { request } from 'undici';
import { Decimal } from '../core/decimal.js';
import { parseTradeId } from '../core/tradeId.js';
import type { FillRecord } from '../store/records.js';
import { RunFeed } from './feed.js';
import { ConsoleServer } from './server.js';
import { recordingLog, testRun, type TestRun } from './testRun.js';

const TOKEN = 'server-test-token-0123456789';
const logs: string[] = [];
const log = recordingLog(logs);
const running: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of running.splice(0)) await c();
  logs.length = 0;
});

async function start(token: string | undefined, fills: FillRecord[] = []): Promise<{ run: TestRun; url: string; feed: RunFeed }> {
  const run = testRun();
  run.fillList = fills;
  const feed = new RunFeed(run, { tickMs: 3_600_000 });
  feed.start();
  const s = await ConsoleServer.start({ run, feed, host: '127.0.0.1', port: 0, token, log, page: () => '<!doctype html><title>x</title>' });
  running.push(async () => {
    await s.close();
    feed.stop();
  });
  return { run, url: s.url, feed };
}

async function call(url: string, method = 'GET', headers: Record<string, string> = {}, body?: string): Promise<{ status: number; text: string; headers: Record<string, unknown> }> {
  const r = await request(url, { method: method as 'GET', headers, ...(body !== undefined ? { body } : {}) });
  return { status: r.statusCode, text: await r.body.text(), headers: r.headers };
}

describe('console server', () => {
  it('without a token: reads open on loopback, commands refused 403 saying how to enable them', async () => {
    const { run, url } = await start(undefined);
    expect((await call(`${url}/api/status`)).status).toBe(200);
    const page = await call(`${url}/`);
    expect(page.status).toBe(200);
    expect(String(page.headers['content-security-policy'])).toContain("default-src 'none'");
    const halt = await call(`${url}/api/halt`, 'POST');
    expect(halt.status).toBe(403);
    expect(halt.text).toContain('KANCIL_CONSOLE_TOKEN');
    expect(run.commands).toEqual([]);
    expect(run.journalled).toEqual([]);
  });

  it('with a token: commands journalled before they act, per strategy or the run; bad input named', async () => {
    const { run, url } = await start(TOKEN);
    const auth = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' };
    expect((await call(`${url}/api/strategies/mm/halt`, 'POST', auth, '{"reason":"r1"}')).status).toBe(200);
    expect((await call(`${url}/api/resume`, 'POST', auth)).status).toBe(200);
    expect(JSON.parse((await call(`${url}/api/cancel-all`, 'POST', auth)).text)).toEqual({ ok: true, command: 'cancel-all', cancelled: 0 });
    expect((await call(`${url}/api/stop`, 'POST', auth, '{"reason":"bye"}')).status).toBe(202);
    expect(run.commands).toEqual([{ scope: { strategy: 'mm' }, state: 'HALTED', reason: 'r1' }, { scope: { strategy: undefined }, state: 'ACTIVE', reason: 'console resume' }, { cancelAll: { strategy: undefined } }, { stop: 'operator: bye' }]);
    expect(run.journalled.map((j) => j.kind)).toEqual(['console', 'console', 'console', 'console']);
    expect(run.journalled[0]?.data).toMatchObject({ command: 'halt', strategy: 'mm', reason: 'r1', from: '127.0.0.1' });
    expect(JSON.parse((await call(`${url}/api/strategies/x%20y/halt`, 'POST', auth)).text).error).toBe('no strategy named "x y" in this run (it has mm)');
    expect((await call(`${url}/api/strategies/mm/stop`, 'POST', auth)).status).toBe(404);
    expect(JSON.parse((await call(`${url}/api/halt`, 'POST', auth, '{"reason":5}')).text).error).toMatch(/^reason: /);
    expect((await call(`${url}/api/halt`, 'POST', auth, 'not json')).status).toBe(400);
    expect((await call(`${url}/api/halt`, 'POST', auth, 'x'.repeat(20_000))).status).toBe(413);
    expect(JSON.parse((await call(`${url}/api/fills?limit=abc`, 'GET', auth)).text).error).toBe('limit="abc": expected a whole number from 1 to 9999');
    expect((await call(`${url}/api/nothing`, 'GET', auth)).status).toBe(404);
    expect((await call(`${url}/api/status`, 'DELETE', auth)).status).toBe(405);
    // A wrong token: 401, logged with the address and without the token.
    const wrong = await call(`${url}/api/halt`, 'POST', { authorization: 'Bearer wrong-token-abcdefghij' });
    expect(wrong.status).toBe(401);
    expect(wrong.headers['www-authenticate']).toBe('Bearer realm="kancil"');
    expect(logs.join('\n')).toMatch(/"from":"127.0.0.1".*"auth":"wrong".*console request refused/);
    expect(logs.join('\n')).not.toContain('wrong-token-abcdefghij');
    expect(logs.join('\n')).not.toContain(TOKEN);
  });

  it('once the run is stopping: every command refused 409 in words and nothing journalled; reads answer', async () => {
    const { run, url } = await start(TOKEN);
    run.stopReason = 'signal SIGTERM';
    const auth = { authorization: `Bearer ${TOKEN}` };
    for (const c of ['halt', 'reduce', 'resume', 'cancel-all', 'stop', 'strategies/mm/halt', 'strategies/mm/cancel-all']) {
      const r = await call(`${url}/api/${c}`, 'POST', auth);
      expect([c, r.status, JSON.parse(r.text)]).toEqual([c, 409, { error: 'stopping: command refused (the run is stopping: signal SIGTERM)' }]);
    }
    expect(run.commands).toEqual([]);
    expect(run.journalled).toEqual([]);
    for (const p of ['/api/status', '/api/fills', '/api/snapshot']) expect([p, (await call(`${url}${p}`, 'GET', auth)).status]).toEqual([p, 200]);
  });

  it('streams the feed as server-sent events', async () => {
    const { run, url } = await start(undefined);
    const r = await request(`${url}/api/events`);
    expect(r.headers['content-type']).toContain('text/event-stream');
    let text = '';
    const got = new Promise<void>((resolve) => {
      r.body.on('data', (c: Buffer) => {
        text += c.toString();
        if (text.includes('event: rejection')) resolve();
      });
    });
    await new Promise((res) => setTimeout(res, 50));
    run.bus.next({ type: 'intentRejected', E: 1, strategy: 'mm', intent: { kind: 'cancelAll', strategy: 'mm', intentId: 'i' }, reason: 'TRADING_HALTED', message: 'halted' });
    await got;
    r.body.destroy();
    const data = /event: rejection\ndata: (.*)\n\n/.exec(text)?.[1] ?? '';
    expect(JSON.parse(data)).toMatchObject({ type: 'rejection', rejection: { strategy: 'mm', reason: 'TRADING_HALTED', message: 'halted' } });
    expect(JSON.parse((await call(`${url}/api/intents`)).text).rejectionsByReason).toEqual({ TRADING_HALTED: 1 });
  });

  it('pages the run\'s fills from the ledger, newest first, with the total beside the retained ones', async () => {
    const day = 86_400_000;
    // 396 fills over two UTC days: more than the feed keeps (200).
    const fills = Array.from({ length: 396 }, (_, i): FillRecord => ({ clientId: `c${i}`, strategy: 'mm', orderId: String(i), symbol: 'BTC_USDT', side: i % 2 === 0 ? 'BUY' : 'SELL', tradeId: parseTradeId('tradeId', String(i + 1)), price: new Decimal(i % 2 === 0 ? '100' : '101'), qty: new Decimal('1'), quoteQty: new Decimal(i % 2 === 0 ? '100' : '101'), commission: new Decimal('0'), commissionAsset: 'USDT', isMaker: true, time: 20_000 * day + i * 300_000, source: 'sim' }));
    const { url } = await start(undefined, fills);
    const snapshot = JSON.parse((await call(`${url}/api/snapshot`)).text) as { fills: unknown[]; fillsTotal: number };
    expect(snapshot.fills).toHaveLength(200);
    expect(snapshot.fillsTotal).toBe(396);
    expect(JSON.parse((await call(`${url}/api/account`)).text)).toEqual({ balances: [], equity: null });
    const first = JSON.parse((await call(`${url}/api/fills`)).text) as { total: number; offset: number; limit: number; fills: { clientId: string }[] };
    expect(first).toMatchObject({ total: 396, offset: 0, limit: 200 });
    expect(first.fills.map((f) => f.clientId).slice(0, 2)).toEqual(['c395', 'c394']);
    const last = JSON.parse((await call(`${url}/api/fills?offset=300&limit=100`)).text) as typeof first;
    expect(last.fills.map((f) => f.clientId)).toEqual(Array.from({ length: 96 }, (_, i) => `c${95 - i}`));
    expect((JSON.parse((await call(`${url}/api/fills?offset=400`)).text) as typeof first).fills).toEqual([]);
    expect(JSON.parse((await call(`${url}/api/fills?offset=-1`)).text).error).toBe('offset="-1": expected a whole number from 0');
    // Daily profit: each day's round trips earn 1 USDT each (buy at 100, sell at 101).
    const daily = JSON.parse((await call(`${url}/api/daily`)).text) as { day: string; quote: string; fills: number; pnl: string }[];
    expect(daily.map((d) => [d.day, d.fills])).toEqual([['2024-10-04', 288], ['2024-10-05', 108]]);
    expect(daily.every((d) => d.quote === 'USDT')).toBe(true);
    expect(daily.reduce((a, d) => a.plus(d.pnl), new Decimal(0)).toFixed()).toBe('198');
  });
});
