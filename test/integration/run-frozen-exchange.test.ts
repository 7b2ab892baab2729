/**
 * A frozen exchange: the sandbox process stopped (SIGSTOP) with every socket left open, so no
 * connection closes and REST calls only time out. A live `kancil run` must notice within its
 * `run.exchangeSilenceSec`, halt trading with the reason, journal it, and when the exchange answers
 * again (SIGCONT) journal how long it was gone, reconcile and trade on; a SIGTERM then exits 0.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { Ledger } from '../../src/store/Ledger.js';
import { startBot, type BotProcess } from '../support/botProcess.js';
import { ALICE, waitFor } from './pipeline-harness.js';
import { killChildren, sandboxProcess } from './sandboxProcess.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const dir = mkdtempSync(path.join(tmpdir(), 'kancil-frozen-'));
const children: BotProcess[] = [];

afterAll(() => {
  killChildren(children);
  rmSync(dir, { recursive: true, force: true });
});

describe('a frozen exchange (process stopped, sockets open)', () => {
  it('halts trading with the reason, journals the halt and its duration, and trades on after it answers again', async () => {
    const { proc: exchange, urls } = await sandboxProcess(dir, children);
    const ledgerPath = path.join(dir, 'ledger.db');
    const configFile = path.join(dir, 'run.yaml');
    writeFileSync(
      configFile,
      stringify({
        mode: 'live',
        name: 'frozen',
        exchange: { base_url: urls.base_url, market_url: urls.market_url, stream_url: urls.stream_url, ws_api_url: urls.ws_api_url, recvWindow: 1000, timeoutMs: 2000 },
        strategies: [{ name: 'churn', plugin: path.join(here, 'pipeline-restart-plugin.ts'), symbols: ['BTC_IDR'], budget: { IDR: '100000000000', BTC: '10' } }],
        storage: { path: ledgerPath },
        run: { timerMs: 50, statusIntervalSec: 60, cancelOnShutdown: true, exchangeSilenceSec: 4 },
        logging: { level: 'info' },
      }),
    );
    const bot = startBot(configFile, { KANCIL_API_KEY: ALICE.apiKey, KANCIL_API_SECRET: ALICE.secret });
    children.push(bot);
    expect(await bot.waitForOutput(/\brunning\b/, 40_000), bot.output()).toBe(true);
    exchange.child.kill('SIGSTOP');
    expect(await bot.waitForOutput(/exchange unreachable: no stream message for \d+ s and no answer to a REST probe/, 30_000), bot.output()).toBe(true);
    exchange.child.kill('SIGCONT');
    // One look at the whole output: the reconciliation's line may come in the same chunk as the answer's.
    expect(await waitFor(() => /exchange answered again after \d+ s unreachable[\s\S]*reconciling with the exchange/.test(bot.output()) || !bot.alive(), 30_000), bot.output()).toBe(true);
    bot.child.kill('SIGTERM');
    expect(await bot.exit, bot.output()).toBe(0);
    exchange.child.kill('SIGTERM');
    await exchange.exit;

    const ledger = Ledger.open(ledgerPath);
    try {
      expect(ledger.journalEntries('exchangeUnreachable')).toHaveLength(1);
      const back = ledger.journalEntries('exchangeBack');
      expect(back).toHaveLength(1);
      expect((back[0]?.data as { downMs: number }).downMs).toBeGreaterThan(0);
      const states = ledger.journalEntries('tradingState').map((e) => e.data as { state: string; reason: string; haltedMs?: number; haltReason?: string });
      const halt = states.findIndex((s) => s.state === 'HALTED' && /^exchange unreachable/.test(s.reason));
      expect(halt, JSON.stringify(states)).toBeGreaterThanOrEqual(0);
      const end = states.slice(halt + 1).find((s) => s.state === 'ACTIVE');
      expect(end?.haltReason).toMatch(/^exchange unreachable/);
      expect(end?.haltedMs).toBeGreaterThan(0);
    } finally {
      ledger.close();
    }
  }, 120_000);
});
