/**
 * Two-way Telegram against a fake Bot API on loopback: long polling with the offset past the last
 * update, every command answered in its chat, actions journalled (source telegram) before they
 * act, other chats ignored and logged once without their text, polling errors backed off.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { Decimal, ZERO } from '../../core/decimal.js';
import { testRun } from '../testRun.js';
import { botApi } from './channels.js';
import { fakeBotApi, type FakeBotApi } from './fakeBotApi.js';
import { TelegramBot } from './telegramBot.js';

const TOKEN = '777:bot-test-token-0123456789';

const logs: string[] = [];
const log = { info: (o: object, m: string) => void logs.push(`${m} ${JSON.stringify(o)}`), warn: (o: object, m: string) => void logs.push(`${m} ${JSON.stringify(o)}`), error: (o: object, m: string) => void logs.push(`${m} ${JSON.stringify(o)}`) };
const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const s of open.splice(0).reverse()) await s.close();
  logs.length = 0;
});

const until = async (cond: () => boolean): Promise<void> => {
  for (let i = 0; i < 500 && !cond(); i++) await new Promise((r) => setTimeout(r, 10));
  expect(cond()).toBe(true);
};

async function setup(): Promise<{ api: FakeBotApi; run: ReturnType<typeof testRun>; bot: TelegramBot; order: string[] }> {
  const api = await fakeBotApi(TOKEN);
  const run = testRun();
  // One list of journal lines and acts, to see which came first.
  const order: string[] = [];
  const journal = run.journal;
  run.journal = (kind, data) => (order.push(`journal ${kind}`), journal(kind, data));
  const setState = run.setState;
  run.setState = (scope, state, reason) => (order.push(`act ${state}`), setState(scope, state, reason));
  const bot = new TelegramBot({ api: botApi(api.url, TOKEN), chatIds: ['7'], run, log, pollSec: 1, retryBaseMs: 50 });
  bot.start();
  open.push(api, { close: () => bot.stop() });
  return { api, run, bot, order };
}

describe('two-way Telegram', () => {
  it('answers the read commands in the configured chat', async () => {
    const { api, run } = await setup();
    run.positionList = [{ strategy: 'mm', symbol: 'BTC_USDT', position: new Decimal('0.002'), cash: new Decimal('-120.0002'), fills: 1, volume: new Decimal('120.0002'), mark: new Decimal('60100') }];
    run.orders = [{ clientId: 'c1', intentId: 'i1', orderId: '9', strategy: 'mm', symbol: 'BTC_USDT', side: 'BUY', orderType: 'LIMIT', timeInForce: 'GTC', price: new Decimal('59000'), quantity: new Decimal('0.001'), quoteOrderQty: undefined, stopPrice: undefined, icebergQty: undefined, stpMode: undefined, venue: 'open', cumQty: ZERO, cumQuoteQty: ZERO, state: 'NEW', reason: undefined, createdAt: 1, sentAt: 1, updatedAt: 1 }];
    for (const c of ['/status', '/balance', '/profit', '/orders', '/daily', '/help@kancil_bot', '/nonsense']) api.say(7, c);
    await until(() => api.sent.length === 7);
    const [status, balance, profit, orders, daily, help, unknown] = api.sent.map((s) => s.text);
    expect(api.sent.every((s) => s.chat_id === '7')).toBe(true);
    expect(status).toMatch(/^test \(paper\): trading ACTIVE \(active\), up \d+ s\nmm \(BTC_USDT\): ACTIVE \(active\)\nopen orders: 1; PnL USDT 0.1998$/);
    expect(balance).toBe('no balances');
    expect(profit).toBe('mm BTC_USDT: position 0.002, PnL USDT 0.1998 (mark 60100), 1 fill\ntotal: USDT 0.1998');
    expect(orders).toBe('mm BUY 0.001 BTC_USDT @ 59000 NEW, executed 0 (c1)');
    expect(daily).toBe('no fills in this run yet');
    expect(help).toContain('/halt [strategy] [reason]');
    expect(unknown).toMatch(/^unknown command \/nonsense\n\/status/);
    // Each update once: every poll asks past the last one seen.
    expect(api.offsets[0]).toBe(0);
    await until(() => api.offsets.includes(107));
    expect(api.sent).toHaveLength(7);
  });

  it('journals each action (source telegram) before it acts, through the console command path', async () => {
    const { api, run, order } = await setup();
    api.say(7, '/halt mm too volatile');
    api.say(7, '/reduce');
    api.say(7, '/resume mm');
    api.say(7, '/halt nosuch');
    api.say(7, '/stop going home');
    await until(() => api.sent.length === 5);
    expect(api.sent.map((s) => s.text)).toEqual(['strategy mm: HALTED', 'run: REDUCING', 'strategy mm: ACTIVE', 'run: HALTED', 'stopping: open orders are cancelled as configured, then the run ends']);
    expect(run.journalled.map((j) => j.data)).toEqual([
      { command: 'halt', strategy: 'mm', reason: 'too volatile', from: 'telegram chat 7 user alice', source: 'telegram' },
      { command: 'reduce', strategy: undefined, reason: 'telegram reduce', from: 'telegram chat 7 user alice', source: 'telegram' },
      { command: 'resume', strategy: 'mm', reason: 'telegram resume', from: 'telegram chat 7 user alice', source: 'telegram' },
      { command: 'halt', strategy: undefined, reason: 'nosuch', from: 'telegram chat 7 user alice', source: 'telegram' },
      { command: 'stop', strategy: undefined, reason: 'going home', from: 'telegram chat 7 user alice', source: 'telegram' },
    ]);
    expect(run.journalled.every((j) => j.kind === 'console')).toBe(true);
    expect(order.slice(0, 4)).toEqual(['journal console', 'act HALTED', 'journal console', 'act REDUCING']);
    expect(run.commands.at(-1)).toEqual({ stop: 'operator: going home' });
  });

  it('once the run is stopping: refuses each action in words, journals nothing, still answers reads', async () => {
    const { api, run } = await setup();
    run.stopReason = 'duration reached';
    for (const c of ['/halt mm', '/resume', '/stop now', '/status']) api.say(7, c);
    await until(() => api.sent.length === 4);
    const refused = 'stopping: command refused (the run is stopping: duration reached)';
    expect(api.sent.slice(0, 3).map((s) => s.text)).toEqual([refused, refused, refused]);
    expect(api.sent[3]?.text).toMatch(/^test \(paper\): trading ACTIVE/);
    expect(run.journalled).toEqual([]);
    expect(run.commands).toEqual([]);
  });

  it('ignores other chats, logging each once without its text', async () => {
    const { api, run } = await setup();
    api.say(99, '/stop secret words here', 'mallory');
    api.say(99, '/halt');
    api.say(7, '/status');
    await until(() => api.sent.length === 1);
    expect(api.sent[0]?.chat_id).toBe('7');
    expect(run.journalled).toEqual([]);
    expect(run.commands).toEqual([]);
    const ignored = logs.filter((l) => l.includes('not configured'));
    expect(ignored).toHaveLength(1);
    expect(ignored[0]).toContain('"chatId":"99"');
    expect(logs.join('\n')).not.toContain('secret words');
  });

  it('backs off after polling errors, says so once, and goes on; the token is never logged', async () => {
    const api = await fakeBotApi(TOKEN);
    api.failNext = 3;
    const run = testRun();
    const bot = new TelegramBot({ api: botApi(api.url, TOKEN), chatIds: ['7'], run, log, pollSec: 1, retryBaseMs: 50 });
    bot.start();
    open.push(api, { close: () => bot.stop() });
    api.say(7, '/help');
    await until(() => api.sent.length === 1);
    expect(logs.filter((l) => l.startsWith('telegram polling failed'))).toHaveLength(1);
    expect(logs.join('\n')).toContain('telegram: HTTP 502');
    expect(logs.join('\n')).toContain('telegram polling works again {"errors":3}');
    expect(logs.join('\n')).not.toContain(TOKEN);
  });
});
