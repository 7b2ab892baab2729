/**
 * `kancil doctor` against the sandbox over 127.0.0.1, healthy and then with one fault at a time
 * (the sandbox's fault routes, wrong keys, a key that may not trade, a skewed clock, an unwritable
 * ledger, a weak token, notification channels down): each fault fails its own line, says what to
 * do, and makes the exit 1.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { diagnose } from '../../src/cli/doctor.js';
import type { CheckLine } from '../../src/cli/doctorLocal.js';
import { runCli } from '../../src/cli/main.js';
import { type RunningSandbox, startSandbox } from '../../src/sandbox/index.js';
import { TEST_ACCOUNTS, testSandboxConfig } from '../../src/sandbox/test-config.js';

const A = TEST_ACCOUNTS.alice;
const TOKEN = '0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef';
const BOT = '123456:doctor-bot-token';
const DAVE = { id: 'dave', apiKey: 'testDaveKey-0123456789abcdef0123456789abcdef0', secret: 'testDaveSecret-0123456789abcdef0123456789a' };
let sbx: RunningSandbox;
let dir: string;
let hooks: http.Server;
let hookUrl: string;
const telegram = { getMe: true, getChat: true };

beforeAll(async () => {
  sbx = await startSandbox(
    testSandboxConfig((doc) => {
      doc.accounts.push({ ...DAVE, canTrade: false, balances: { USDT: '100' } });
    }),
    { quiet: true },
  );
  dir = mkdtempSync(path.join(os.tmpdir(), 'kancil-doctor-'));
  // One fake for both channels: the webhook (POST /hook) and the Telegram Bot API.
  hooks = http.createServer((req, res) => {
    req.resume();
    const url = req.url ?? '';
    const ok = url === '/hook' || (url === `/bot${BOT}/getMe` && telegram.getMe) || (url.startsWith(`/bot${BOT}/getChat`) && telegram.getChat);
    res.writeHead(ok ? 200 : 401, { 'content-type': 'application/json' }).end(JSON.stringify(ok ? { ok: true, result: { username: 'kancil_bot', id: 1 } } : { ok: false, description: 'Unauthorized' }));
  });
  await new Promise<void>((r) => hooks.listen(0, '127.0.0.1', r));
  hookUrl = `http://127.0.0.1:${(hooks.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await sbx.stop();
  await new Promise((r) => hooks.close(r));
  rmSync(dir, { recursive: true, force: true });
});

/** Writes a live config over the sandbox, changed by `patch`; returns its path. */
function config(name: string, patch: (doc: Record<string, unknown>) => void = () => {}): string {
  const u = sbx.urls;
  const doc: Record<string, unknown> = {
    mode: 'live',
    name,
    exchange: { base_url: u.base_url, market_url: u.market_url, depth_url: u.depth_url, stream_url: u.stream_url, timeoutMs: 1500 },
    strategies: [{ name: 'mm', plugin: 'market-maker', symbols: ['BTC_USDT'] }],
    storage: { path: path.join(dir, `${name}.db`) },
    console: { host: '127.0.0.1', port: 0, notify: { webhook: true, telegram: { chatId: '42', baseUrl: hookUrl } } },
  };
  patch(doc);
  const file = path.join(dir, `${name}.yaml`);
  writeFileSync(file, stringify(doc));
  return file;
}

const goodEnv = (): Record<string, string> => ({ KANCIL_API_KEY: A.apiKey, KANCIL_API_SECRET: A.secret, KANCIL_CONSOLE_TOKEN: TOKEN, KANCIL_WEBHOOK_URL: `${hookUrl}/hook`, KANCIL_TELEGRAM_TOKEN: BOT });

const byCheck = (lines: readonly CheckLine[]): Record<string, CheckLine> => Object.fromEntries(lines.map((l) => [l.check, l]));

async function admin(p: string, body: unknown): Promise<void> {
  const r = await fetch(`${sbx.urls.admin_url}${p}`, { method: 'POST', body: JSON.stringify(body) });
  expect(r.status).toBe(200);
  await r.text();
}

/** The lines of the doctor with one fault in place; only `expectFailed` may fail. */
async function withFault(file: string, env: Record<string, string>, expectFailed: readonly string[]): Promise<Record<string, CheckLine>> {
  const lines = await diagnose(file, env);
  expect(lines.filter((l) => l.status === 'FAIL').map((l) => l.check)).toEqual(expectFailed);
  return byCheck(lines);
}

describe('kancil doctor', () => {
  it('a healthy setup: every line OK, exit 0', async () => {
    let out = '';
    const code = await runCli(['doctor', config('healthy')], { stdout: (t) => (out += t), stderr: (t) => (out += t), env: goodEnv() });
    expect(out).toMatch(/^OK +config +live run "healthy": mm on BTC_USDT$/m);
    for (const c of ['keys', 'exchange', 'clock', 'account', 'symbols', 'ledger', 'console token', 'notify webhook', 'notify telegram']) expect(out, c).toMatch(new RegExp(`^OK {4}${c} `, 'm'));
    expect(out).toContain('can trade; maker');
    expect(out).toContain('BTC_USDT (');
    expect(out).toContain('bot @kancil_bot reaches chat 42');
    expect(out).toMatch(/\nready\n$/);
    expect(code).toBe(0);
    // No secret in the report.
    for (const s of [A.apiKey, A.secret, TOKEN, BOT]) expect(out).not.toContain(s);
  });

  it('the exchange down or in maintenance: the exchange line fails and the steps after it are skipped', async () => {
    const file = config('exchange');
    await admin('/faults/maintenance', { scope: 'open' });
    try {
      const l = await withFault(file, goodEnv(), ['exchange']);
      expect(l.account?.status).toBe('SKIP');
    } finally {
      await admin('/faults/clear', {});
    }
    await admin('/faults/blackhole', { scope: 'open', pathPrefix: '/open/v1/common/time' });
    try {
      expect((await withFault(file, goodEnv(), ['exchange'])).exchange?.text).toMatch(/^cannot reach http:\/\/127\.0\.0\.1:\d+ .*check the URL, DNS and firewall$/);
    } finally {
      await admin('/faults/clear', {});
    }
    const closed = config('closed', (d) => {
      d.exchange = { ...(d.exchange as object), base_url: 'http://127.0.0.1:9' };
    });
    expect((await withFault(closed, goodEnv(), ['exchange'])).exchange?.text).toContain('cannot reach http://127.0.0.1:9');
  });

  it('keys missing, refused, or not allowed to trade', async () => {
    const file = config('keys');
    const { KANCIL_API_KEY: _k, KANCIL_API_SECRET: _s, ...noKeys } = goodEnv();
    const missing = await withFault(file, noKeys, ['keys']);
    expect(missing.keys?.text).toContain('KANCIL_API_KEY and KANCIL_API_SECRET not set');
    expect(missing.account?.status).toBe('SKIP');
    expect((await withFault(file, { ...goodEnv(), KANCIL_API_SECRET: 'wrong-secret-0123456789' }, ['account'])).account?.text).toMatch(/^key refused .*Signature for this request is not valid/);
    // A key with API_KEY permission only: refused on SIGNED endpoints.
    expect((await withFault(file, { ...goodEnv(), KANCIL_API_KEY: TEST_ACCOUNTS.carol.apiKey, KANCIL_API_SECRET: TEST_ACCOUNTS.carol.secret }, ['account'])).account?.text).toMatch(/^key refused .*permissions/);
    expect((await withFault(file, { ...goodEnv(), KANCIL_API_KEY: DAVE.apiKey, KANCIL_API_SECRET: DAVE.secret }, ['account'])).account?.text).toContain('cannot trade (canTrade 0): enable trading');
  });

  it('a symbol the exchange does not list, and a clock off by more than half the recvWindow', async () => {
    const sym = config('symbols', (d) => {
      d.strategies = [{ name: 'mm', plugin: 'market-maker', symbols: ['BTC_USDT', 'XRP_USDT'] }];
    });
    expect((await withFault(sym, goodEnv(), ['symbols'])).symbols?.text).toContain('does not list XRP_USDT');
    const file = config('clock');
    const skewed = byCheck(await diagnose(file, goodEnv(), { now: () => Date.now() - 8000 }));
    expect(skewed.clock?.status).toBe('FAIL');
    expect(skewed.clock?.text).toMatch(/^local clock \d+ ms behind the exchange \(recvWindow 5000 ms\): turn on time sync/);
    expect((await diagnose(file, goodEnv(), { now: () => Date.now() + 2000 })).find((l) => l.check === 'clock')?.status).toBe('WARN');
  });

  it('an unwritable ledger, a weak or missing console token, notification channels down', async () => {
    writeFileSync(path.join(dir, 'a-file'), '');
    const ledger = config('ledger', (d) => {
      d.storage = { path: path.join(dir, 'a-file', 'live.db') };
    });
    expect((await withFault(ledger, goodEnv(), ['ledger'])).ledger?.text).toContain('is not a folder');
    const file = config('token');
    expect((await withFault(file, { ...goodEnv(), KANCIL_CONSOLE_TOKEN: 'aaaaaaaaaaaaaaaaaaaa' }, ['console token']))['console token']?.text).toContain('weak');
    expect((await withFault(file, { ...goodEnv(), KANCIL_CONSOLE_TOKEN: 'short' }, ['console token']))['console token']?.text).toContain('at least 16 characters');
    const open = config('open', (d) => {
      d.console = { host: '0.0.0.0', port: 0 };
    });
    const { KANCIL_CONSOLE_TOKEN: _t, ...noToken } = goodEnv();
    expect((await withFault(open, noToken, ['console token']))['console token']?.text).toContain('the run refuses to start');
    expect((await withFault(file, { ...goodEnv(), KANCIL_WEBHOOK_URL: 'http://127.0.0.1:9/hook' }, ['notify webhook']))['notify webhook']?.text).toContain('not reachable');
    telegram.getChat = false;
    try {
      expect((await withFault(file, goodEnv(), ['notify telegram']))['notify telegram']?.text).toContain('cannot see chat 42');
    } finally {
      telegram.getChat = true;
    }
    const badBot = await withFault(file, { ...goodEnv(), KANCIL_TELEGRAM_TOKEN: '999:wrong' }, ['notify telegram']);
    expect(badBot['notify telegram']?.text).toContain('bot token was refused');
    expect(badBot['notify telegram']?.text).not.toContain('999:wrong');
    // Through the command: exit 1, and the failed line says what to do.
    let out = '';
    expect(await runCli(['doctor', ledger], { stdout: (t) => (out += t), stderr: (t) => (out += t), env: goodEnv() })).toBe(1);
    expect(out).toMatch(/^FAIL {2}ledger /m);
    expect(out).toContain('1 check(s) failed');
    expect(await runCli(['doctor'], { stdout: () => {}, stderr: (t) => (out += t), env: {} })).toBe(2);
  });

  // Last: the sandbox keeps a ban for its whole length, whatever the fault routes clear.
  it('an IP ban: the exchange line says to wait it out', async () => {
    await admin('/faults/rate-limit', { status: 418, seconds: 60 });
    expect((await withFault(config('ban'), goodEnv(), ['exchange'])).exchange?.text).toMatch(/rate limited or banned .*wait until the ban ends/);
  });
});
