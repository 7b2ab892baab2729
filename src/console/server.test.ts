/**
 * The console server over loopback with a fake run: read access with and without a token, the
 * commands' checks and journal, the live feed as server-sent events, and bad requests named.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { request } from 'undici';
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

async function start(token: string | undefined): Promise<{ run: TestRun; url: string; feed: RunFeed }> {
  const run = testRun();
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
});
