/**
 * An operator drill, end to end: a live `kancil run` (child process) trading on a `kancil sandbox`
 * (its own process), notifying a fake Telegram Bot API on loopback and taking commands from it.
 * The exchange answers an order with a 500 before its engine sees it (outcome unknown), drops every stream
 * twice, and freezes (SIGSTOP, sockets open) past the bot's silence limit; the chat halts and
 * resumes the run; a SIGTERM stops it. Every trading-state change the run journalled while its
 * console listened must have reached the chat, in order, with the start, the unknown order and how
 * it settled, and the stop.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { fakeBotApi, type FakeBotApi } from '../../src/console/notify/fakeBotApi.js';
import { LedgerReader } from '../../src/store/LedgerReader.js';
import { startBot, type BotProcess } from '../support/botProcess.js';
import { ALICE, waitFor } from './pipeline-harness.js';
import { killChildren, sandboxProcess } from './sandboxProcess.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const dir = mkdtempSync(path.join(tmpdir(), 'kancil-drill-'));
const children: BotProcess[] = [];
let api: FakeBotApi | undefined;
const BOT_TOKEN = '4711:drill-telegram-token';

afterAll(async () => {
  killChildren(children);
  await api?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('an operator drill', () => {
  it('delivers every critical alert through an unknown order, stream drops, a freeze and chat commands', async () => {
    api = await fakeBotApi(BOT_TOKEN);
    const chat = api;
    const { proc: exchange, urls } = await sandboxProcess(dir, children);
    const admin = async (p: string, body: unknown): Promise<void> => void (await fetch(`${urls.admin_url}${p}`, { method: 'POST', body: JSON.stringify(body) })).body?.cancel();
    const ledgerPath = path.join(dir, 'ledger.db');
    const configFile = path.join(dir, 'run.yaml');
    writeFileSync(
      configFile,
      stringify({
        mode: 'live',
        name: 'drill',
        exchange: { base_url: urls.base_url, market_url: urls.market_url, stream_url: urls.stream_url, ws_api_url: urls.ws_api_url, recvWindow: 1000, timeoutMs: 2000 },
        strategies: [{ name: 'churn', plugin: path.join(here, 'pipeline-restart-plugin.ts'), symbols: ['BTC_IDR'], budget: { IDR: '100000000000', BTC: '10' } }],
        storage: { path: ledgerPath },
        run: { timerMs: 100, statusIntervalSec: 60, cancelOnShutdown: true, exchangeSilenceSec: 4 },
        logging: { level: 'info' },
        console: { port: 0, notify: { telegram: { chatId: 7, baseUrl: chat.url }, events: [], outageAfterSec: 2 } },
      }),
    );
    const bot = startBot(configFile, { KANCIL_API_KEY: ALICE.apiKey, KANCIL_API_SECRET: ALICE.secret, KANCIL_TELEGRAM_TOKEN: BOT_TOKEN });
    children.push(bot);
    const lines = (): string[] => chat.sent.flatMap((s) => s.text.replace(/^\[drill\] /, '').split('\n'));
    const arrived = (re: RegExp, ms = 30_000): Promise<boolean> => waitFor(() => lines().some((l) => re.test(l)), ms);
    expect(await arrived(/^started: live run/), bot.output()).toBe(true);
    // State changes journalled before the console listened are not expected in the chat.
    const before = LedgerReader.open(ledgerPath);
    const journalledBefore = before.journal(['tradingState'], 10_000).length;
    before.close();

    await admin('/faults/fail-orders', { when: 'before', status: 500, count: 1, scope: 'open' });
    expect(await arrived(/^order of unknown outcome: churn /), lines().join('\n')).toBe(true);
    expect(await arrived(/^order churn .* (settled as |was proven not placed)/), lines().join('\n')).toBe(true);
    const reconnects = (): number => bot.output().split('reconnected').length - 1;
    for (let i = 0; i < 2; i++) {
      const seen = reconnects();
      await admin('/faults/drop-connections', {});
      expect(await waitFor(() => reconnects() > seen, 20_000), bot.output()).toBe(true);
      await new Promise((r) => setTimeout(r, 1500));
    }
    exchange.child.kill('SIGSTOP');
    expect(await arrived(/trading state HALTED \(exchange unreachable/), lines().join('\n')).toBe(true);
    exchange.child.kill('SIGCONT');
    expect(await waitFor(() => /exchange answered again after \d+ s unreachable/.test(bot.output()), 30_000), bot.output()).toBe(true);
    chat.say(7, '/halt drill halt');
    expect(await arrived(/^run: HALTED$/)).toBe(true);
    chat.say(7, '/resume');
    expect(await arrived(/^run: ACTIVE$/)).toBe(true);
    await new Promise((r) => setTimeout(r, 1000));
    bot.child.kill('SIGTERM');
    expect(await bot.exit, bot.output()).toBe(0);
    exchange.child.kill('SIGTERM');
    await exchange.exit;

    expect(lines().at(-1), lines().join("\n")).toMatch(/^stopped: /);
    const reader = LedgerReader.open(ledgerPath);
    let journalled: string[];
    let commands: unknown[];
    try {
      journalled = reader.journal(['tradingState'], 10_000).map((r) => {
        const d = r.data as { state: string; reason: string };
        return `run trading state ${d.state} (${d.reason})`;
      });
      commands = reader.journal(['console']).map((r) => r.data);
    } finally {
      reader.close();
    }
    const delivered = lines().filter((l) => l.startsWith('run trading state'));
    // Every change after the console started, in order; nothing that was not journalled.
    expect(delivered.length).toBeGreaterThanOrEqual(journalled.length - journalledBefore);
    expect(delivered).toEqual(journalled.slice(journalled.length - delivered.length));
    expect(delivered.length).toBeGreaterThanOrEqual(8);
    expect(commands).toMatchObject([
      { command: 'halt', reason: 'drill halt', source: 'telegram' },
      { command: 'resume', reason: 'telegram resume', source: 'telegram' },
    ]);
  }, 180_000);
});
