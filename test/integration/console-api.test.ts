/**
 * The operator's console of `kancil run`, end to end: the npm start configuration (paper against
 * the in-process sandbox) with a console on an ephemeral loopback port. Reads answer while the bot
 * trades (with the token; a rebound Host is refused); commands need the bearer token (a wrong one is 401 and logged without it); a command for
 * an unknown strategy is 404 naming it; HALT stops new orders; every command is journalled; STOP
 * ends the run through the normal shutdown.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { request } from 'undici';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { runCommand } from '../../src/cli/run.js';
import { LedgerReader } from '../../src/store/LedgerReader.js';
import { logSink, waitFor } from './pipeline-harness.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const dir = mkdtempSync(path.join(tmpdir(), 'kancil-console-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const TOKEN = 'console-test-token-0123456789abcdef';
const WRONG = 'not-the-token-but-close-0123456789';

async function call(url: string, method: 'GET' | 'POST', token?: string, body?: unknown): Promise<{ status: number; json: unknown; text: string }> {
  const r = await request(url, { method, headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body ? { 'content-type': 'application/json' } : {}) }, ...(body ? { body: JSON.stringify(body) } : {}) });
  const text = await r.body.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: r.statusCode, json, text };
}

/** Status of a GET with the token and the given Host header (as a page on a rebound DNS name sends it). */
function statusWithHost(url: string, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { headers: { host, authorization: `Bearer ${TOKEN}` }, agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
  });
}

describe('console control API on a paper run against the sandbox', () => {
  it('serves state, refuses bad tokens and unknown strategies, halts, journals and stops the run', async () => {
    const doc = parse(readFileSync(path.join(repoRoot, 'config/default.yaml'), 'utf8')) as Record<string, unknown>;
    const file = path.join(dir, 'console.yaml');
    const db = path.join(dir, 'console.db');
    writeFileSync(file, stringify({ ...doc, sandbox: { config: path.join(repoRoot, 'config/paper-sandbox.yaml') }, storage: { path: db }, logging: { level: 'info' }, console: { port: 0 } }));
    let out = '';
    const logs: string[] = [];
    const done = runCommand([file, '--duration', '120'], { stdout: (t) => (out += t), stderr: (t) => (out += t), env: { KANCIL_CONSOLE_TOKEN: TOKEN } }, logSink(logs));
    try {
      expect(await waitFor(() => /console: (http:\/\/127\.0\.0\.1:\d+)\/ \(dashboard/.test(out), 20_000), out).toBe(true);
      const base = /console: (http:\/\/127\.0\.0\.1:\d+)\/ \(dashboard/.exec(out)?.[1] ?? '';
      const responses: string[] = [];
      const get = async (p: string): Promise<unknown> => {
        const r = await call(`${base}${p}`, 'GET', TOKEN);
        expect(r.status, `${p}: ${r.text}`).toBe(200);
        responses.push(r.text);
        return r.json;
      };

      const status = (await get('/api/status')) as { mode: string; name: string; tradingState: { state: string }; commandsEnabled: boolean };
      expect(status).toMatchObject({ mode: 'paper', name: 'demo', tradingState: { state: 'ACTIVE' }, commandsEnabled: true });
      expect(((await get('/api/strategies')) as { name: string; state: string }[]).map((s) => [s.name, s.state])).toEqual([['mm', 'ACTIVE']]);
      // The market maker quotes within a few seconds; its open orders and fills show up.
      let orders: { clientId: string; strategy: string; price: string }[] = [];
      let fills: unknown[] = [];
      const t0 = Date.now();
      while (Date.now() - t0 < 20_000 && (orders.length === 0 || fills.length === 0)) {
        orders = (await get('/api/orders')) as typeof orders;
        fills = ((await get('/api/fills')) as { fills: unknown[] }).fills;
        await new Promise((r) => setTimeout(r, 200));
      }
      expect(orders.length).toBeGreaterThan(0);
      expect(orders[0]?.strategy).toBe('mm');
      expect(orders[0]?.price).toMatch(/^\d+(\.\d+)?$/);
      expect(fills.length).toBeGreaterThan(0);
      const books = (await get('/api/books')) as { symbol: string; ready: boolean; bid: string; ask: string }[];
      expect(books[0]).toMatchObject({ symbol: 'BTC_USDT', ready: true });
      expect(Number(books[0]?.ask)).toBeGreaterThan(Number(books[0]?.bid));
      expect((await get('/api/positions')) as unknown[]).not.toHaveLength(0);
      expect(((await get('/api/balances')) as { asset: string }[]).map((b) => b.asset).sort()).toEqual(['BTC', 'USDT']);
      expect((await get('/api/pnl')) as { total: Record<string, string> }).toHaveProperty('total.USDT');
      expect(((await get('/api/intents')) as { stats: { intents: number } }).stats.intents).toBeGreaterThan(0);
      const metrics = await call(`${base}/metrics`, 'GET', TOKEN);
      responses.push(metrics.text);
      expect(metrics.status).toBe(200);
      expect(metrics.text).toMatch(/kancil_orders_total\{strategy="mm",symbol="BTC_USDT",side="(BUY|SELL)",type="(LIMIT_MAKER|LIMIT)"[^}]*\} [1-9]/);
      expect(metrics.text).toMatch(/kancil_fills_total\{strategy="mm"[^}]*\} [1-9]/);
      expect(metrics.text).toMatch(/kancil_order_roundtrip_seconds_count\{[^}]*\} [1-9]/);
      expect(metrics.text).toMatch(/kancil_position\{strategy="mm",symbol="BTC_USDT"/);
      expect(metrics.text).toContain('process_cpu_seconds_total{');

      // Reads need the token too once one is set; a page on a rebound DNS name reads nothing, token or not.
      expect((await call(`${base}/api/balances`, 'GET')).status).toBe(401);
      expect(await statusWithHost(`${base}/api/balances`, 'rebind.attacker.example')).toBe(403);
      expect(await statusWithHost(`${base}/api/snapshot`, 'rebind.attacker.example')).toBe(403);

      // Commands: no token, a wrong token, an unknown strategy, an unknown command.
      expect((await call(`${base}/api/halt`, 'POST')).status).toBe(401);
      expect((await call(`${base}/api/halt`, 'POST', WRONG)).status).toBe(401);
      const unknown = await call(`${base}/api/strategies/nope/halt`, 'POST', TOKEN);
      expect(unknown.status).toBe(404);
      expect((unknown.json as { error: string }).error).toBe('no strategy named "nope" in this run (it has mm)');
      expect((await call(`${base}/api/strategies/mm/explode`, 'POST', TOKEN)).status).toBe(404);
      expect((await call(`${base}/api/halt`, 'POST', TOKEN, '[1]')).status).toBe(400);
      expect(logs.join('')).toContain('console request refused: wrong or missing token');

      // Per strategy: reduce, then resume.
      expect((await call(`${base}/api/strategies/mm/reduce`, 'POST', TOKEN, { reason: 'test reduce' })).status).toBe(200);
      expect(((await get('/api/strategies')) as { state: string; reason: string }[])[0]).toMatchObject({ state: 'REDUCING', reason: 'operator: test reduce' });
      expect((await call(`${base}/api/strategies/mm/resume`, 'POST', TOKEN)).status).toBe(200);

      // HALT the run: no new order after it; the strategy's placements are refused with the reason.
      const halt = await call(`${base}/api/halt`, 'POST', TOKEN, { reason: 'test halt' });
      expect(halt.status).toBe(200);
      expect(((await get('/api/status')) as { tradingState: { state: string } }).tradingState.state).toBe('HALTED');
      const reader = LedgerReader.open(db);
      try {
        const before = reader.orders().length;
        expect(await waitFor(() => reader.rejections(500).some((r) => r.reason === 'TRADING_HALTED'), 10_000)).toBe(true);
        await new Promise((r) => setTimeout(r, 1500));
        expect(reader.orders().length).toBe(before);
        const intents = (await get('/api/intents')) as { rejectionsByReason: Record<string, number> };
        expect(intents.rejectionsByReason.TRADING_HALTED).toBeGreaterThan(0);
        // cancel-all: the open orders are asked to cancel, and go.
        const cancel = await call(`${base}/api/cancel-all`, 'POST', TOKEN);
        expect(cancel.status).toBe(200);
        expect(await waitFor(() => reader.orders({ open: true }).length === 0, 10_000)).toBe(true);
      } finally {
        reader.close();
      }

      const stop = await call(`${base}/api/stop`, 'POST', TOKEN, { reason: 'test over' });
      expect(stop.status).toBe(202);
      expect(await done).toBe(0);
      expect(out).toContain('run stopped (operator: test over)');

      const after = LedgerReader.open(db);
      try {
        const commands = after.journal(['console']).map((j) => j.data as { command: string; strategy?: string; reason: string });
        expect(commands.map((c) => [c.command, c.strategy, c.reason])).toEqual([
          ['reduce', 'mm', 'test reduce'],
          ['resume', 'mm', 'console resume'],
          ['halt', undefined, 'test halt'],
          ['cancel-all', undefined, 'console cancel-all'],
          ['stop', undefined, 'test over'],
        ]);
      } finally {
        after.close();
      }
      // Neither the token nor a near miss reaches a log line or an answer.
      const everything = logs.join('') + responses.join('') + out;
      expect(everything).not.toContain(TOKEN);
      expect(everything).not.toContain(WRONG);
    } finally {
      // A failed assertion must not leave the run going.
      await Promise.race([done.catch(() => 1), new Promise((r) => setTimeout(r, 100))]);
    }
  }, 90_000);

  it('a console that cannot start (its port taken) leaves the run trading', async () => {
    const blocker = http.createServer();
    await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', r));
    const port = (blocker.address() as AddressInfo).port;
    try {
      const doc = parse(readFileSync(path.join(repoRoot, 'config/default.yaml'), 'utf8')) as Record<string, unknown>;
      const file = path.join(dir, 'taken.yaml');
      const db = path.join(dir, 'taken.db');
      writeFileSync(file, stringify({ ...doc, sandbox: { config: path.join(repoRoot, 'config/paper-sandbox.yaml') }, storage: { path: db }, logging: { level: 'info' }, console: { port } }));
      let out = '';
      const logs: string[] = [];
      const code = await runCommand([file, '--duration', '4'], { stdout: (t) => (out += t), stderr: (t) => (out += t), env: {} }, logSink(logs));
      expect(code, out).toBe(0);
      expect(logs.join('')).toContain('the console could not start; the run goes on without it');
      // The line names the port and the setting to change.
      expect(logs.join('')).toContain(`port ${port} is in use: set console.port to a free one (0 = any)`);
      expect(out).not.toContain('console: http');
      const reader = LedgerReader.open(db);
      try {
        expect(reader.orders().length).toBeGreaterThan(0);
      } finally {
        reader.close();
      }
    } finally {
      await new Promise((r) => blocker.close(r));
    }
  }, 60_000);
});
