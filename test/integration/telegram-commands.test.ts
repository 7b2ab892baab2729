/**
 * Two-way Telegram on a real run: the npm start configuration (paper against the in-process
 * sandbox) with its console notifying a fake Bot API on loopback. A /halt from the configured chat
 * halts the run and is journalled in the ledger (kind console, source telegram) before the state
 * change; /status says so; a /stop from another chat is ignored; a /stop from the chat ends the
 * run through the normal shutdown, and the "stopped" alert arrives.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { runCommand } from '../../src/cli/run.js';
import { fakeBotApi } from '../../src/console/notify/fakeBotApi.js';
import { LedgerReader } from '../../src/store/LedgerReader.js';
import { logSink, waitFor } from './pipeline-harness.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const dir = mkdtempSync(path.join(tmpdir(), 'kancil-telegram-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const BOT_TOKEN = '31337:telegram-integration-token';

describe('Telegram commands on a paper run against the sandbox', () => {
  it('halts, answers, ignores other chats, journals before acting and stops the run', async () => {
    const api = await fakeBotApi(BOT_TOKEN);
    const doc = parse(readFileSync(path.join(repoRoot, 'config/default.yaml'), 'utf8')) as Record<string, unknown>;
    const file = path.join(dir, 'tg.yaml');
    const db = path.join(dir, 'tg.db');
    writeFileSync(file, stringify({ ...doc, name: 'tg', sandbox: { config: path.join(repoRoot, 'config/paper-sandbox.yaml') }, storage: { path: db }, logging: { level: 'info' }, console: { port: 0, notify: { telegram: { chatId: 7, baseUrl: api.url }, events: [] } } }));
    let out = '';
    const logs: string[] = [];
    const done = runCommand([file, '--duration', '120'], { stdout: (t) => (out += t), stderr: (t) => (out += t), env: { KANCIL_TELEGRAM_TOKEN: BOT_TOKEN } }, logSink(logs));
    const texts = (): string[] => api.sent.map((s) => s.text);
    let code: number | undefined;
    try {
      expect(await waitFor(() => texts().some((t) => t.startsWith('[tg] started: paper run')), 30_000), out).toBe(true);
      api.say(7, '/halt too volatile');
      expect(await waitFor(() => texts().includes('run: HALTED'), 10_000), texts().join('\n')).toBe(true);
      expect(await waitFor(() => texts().some((t) => t.includes('run trading state HALTED (operator: too volatile)')), 10_000), texts().join('\n')).toBe(true);
      api.say(7, '/status');
      expect(await waitFor(() => texts().some((t) => t.startsWith('tg (paper): trading HALTED (operator: too volatile)')), 10_000), texts().join('\n')).toBe(true);
      api.say(99, '/stop');
      api.say(7, '/help');
      expect(await waitFor(() => texts().some((t) => t.startsWith('/status - ')), 10_000)).toBe(true);
      api.say(7, '/stop done for today');
      code = await done;
    } finally {
      if (code === undefined) {
        api.say(7, '/stop cleanup');
        await done;
      }
      await api.close();
    }
    expect(code).toBe(0);
    expect(out).toContain('run stopped (operator: done for today)');
    expect(texts().at(-1)).toMatch(/^\[tg\] stopped: operator: done for today; 0 open orders left/);
    expect(logs.join('')).toContain('telegram message from a chat that is not configured');
    const reader = LedgerReader.open(db);
    try {
      const rows = reader.journal([], 500);
      const commands = rows.filter((r) => r.kind === 'console').map((r) => r.data as { command: string; source: string; reason: string; from: string });
      expect(commands.map((c) => [c.command, c.source, c.reason, c.from])).toEqual([
        ['halt', 'telegram', 'too volatile', 'telegram chat 7 user alice'],
        ['stop', 'telegram', 'done for today', 'telegram chat 7 user alice'],
      ]);
      // Journalled before it acted: the halt's row comes before the operator state row it caused.
      const haltAt = rows.findIndex((r) => r.kind === 'console');
      const stateAt = rows.findIndex((r) => r.kind === 'operator' && (r.data as { state?: string }).state === 'HALTED');
      expect(haltAt).toBeGreaterThanOrEqual(0);
      expect(stateAt).toBeGreaterThan(haltAt);
    } finally {
      reader.close();
    }
  }, 120_000);
});
