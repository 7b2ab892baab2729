/**
 * Crash safety end to end: `kancil run` (a child process, live mode) trades against a sandbox
 * started here, is killed with SIGKILL mid-run, and is started again on the same ledger. The
 * ledger must then agree with the sandbox's own record: every order the exchange has for the
 * account is in the ledger (no untracked order), every account trade is a ledger fill with the
 * same quantity and nothing more (no lost or phantom fill), and nothing is left PENDING/UNKNOWN.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { resolveSandboxConfig, startSandbox, type RunningSandbox } from '../../src/sandbox/index.js';
import { Ledger } from '../../src/store/Ledger.js';
import { startBot, type BotProcess } from '../support/botProcess.js';
import { ALICE, sandboxDoc, waitFor } from './pipeline-harness.js';

const here = path.dirname(fileURLToPath(import.meta.url));

let sandbox: RunningSandbox;
let dir: string;
let configFile: string;
let ledgerPath: string;
const children: BotProcess[] = [];

/** The bot on this test's config and ledger, killed in `afterAll` if still alive. */
function bot(): BotProcess {
  const b = startBot(configFile, { KANCIL_API_KEY: ALICE.apiKey, KANCIL_API_SECRET: ALICE.secret });
  children.push(b);
  return b;
}

beforeAll(async () => {
  sandbox = await startSandbox(resolveSandboxConfig(sandboxDoc({ synthetic: true }), 'pipeline-restart', process.cwd()));
  dir = mkdtempSync(path.join(tmpdir(), 'kancil-restart-'));
  ledgerPath = path.join(dir, 'ledger.db');
  configFile = path.join(dir, 'run.yaml');
  writeFileSync(
    configFile,
    stringify({
      mode: 'live',
      name: 'restart',
      exchange: { base_url: sandbox.urls.base_url, market_url: sandbox.urls.market_url, stream_url: sandbox.urls.stream_url, ws_api_url: sandbox.urls.ws_api_url, recvWindow: 1000 },
      strategies: [{ name: 'churn', plugin: path.join(here, 'pipeline-restart-plugin.ts'), symbols: ['BTC_IDR'], budget: { IDR: '100000000000', BTC: '10' } }],
      storage: { path: ledgerPath },
      run: { timerMs: 50, statusIntervalSec: 60, cancelOnShutdown: true },
      logging: { level: 'warn' },
    }),
  );
});

afterAll(async () => {
  for (const c of children) if (c.alive()) c.child.kill('SIGKILL');
  await sandbox.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('restart after SIGKILL', () => {
  it('loses no fill and leaves no untracked order', async () => {
    const first = bot();
    const trades = () => sandbox.engine.accountTrades(ALICE.id, 'BTC_IDR').length;
    const traded = await waitFor(() => trades() >= 6 || first.child.exitCode !== null, 25_000);
    expect(traded, first.output()).toBe(true);
    expect(first.child.exitCode, first.output()).toBeNull();
    first.child.kill('SIGKILL');
    expect(await first.exit).toBeNull();
    expect(first.child.signalCode).toBe('SIGKILL');
    // Orders of the dead bot still resting on the exchange are reconciled by the restart.
    const atKill = trades();
    const second = bot();
    // Trading again after the restart (reconciliation done, strategies running); then a graceful SIGTERM.
    expect(await waitFor(() => trades() >= atKill + 4 || second.child.exitCode !== null, 25_000), second.output()).toBe(true);
    second.child.kill('SIGTERM');
    const code = await second.exit;
    expect(code, second.output()).toBe(0);

    const ledger = Ledger.open(ledgerPath);
    try {
      const exchangeOrders = sandbox.engine.allOrders(ALICE.id, 'BTC_IDR');
      const ledgerOrders = new Map(ledger.orders().map((o) => [o.clientId, o]));
      expect(exchangeOrders.length).toBeGreaterThan(5);
      for (const x of exchangeOrders) {
        const mine = ledgerOrders.get(x.clientId);
        expect(mine, `exchange order ${x.clientId} is not in the ledger`).toBeDefined();
        expect(mine?.orderId).toBe(x.orderId);
        expect(mine?.state, `state of ${x.clientId}`).toBe(x.status);
        expect(mine?.cumQty.eq(x.executedQty), `cumQty of ${x.clientId}`).toBe(true);
      }
      // Nothing left open on the exchange (cancel on shutdown covers earlier runs' orders too).
      expect(sandbox.engine.openOrders(ALICE.id, 'BTC_IDR')).toHaveLength(0);
      // Ledger orders the exchange never saw must be closed as not sent / not placed, never live.
      for (const o of ledgerOrders.values()) {
        expect(['PENDING', 'UNKNOWN', 'NEW', 'PARTIALLY_FILLED']).not.toContain(o.state);
        if (!exchangeOrders.some((x) => x.clientId === o.clientId)) expect(o.state).toBe('REJECTED');
      }
      const exchangeTrades = sandbox.engine.accountTrades(ALICE.id, 'BTC_IDR', { limit: 1000 });
      const fills = ledger.fills();
      const key = (orderId: string, tradeId: string | number) => `${orderId}/${String(tradeId)}`;
      const fillMap = new Map(fills.map((f) => [key(f.orderId, f.tradeId), f]));
      expect(exchangeTrades.length).toBeGreaterThanOrEqual(6);
      for (const t of exchangeTrades) {
        const f = fillMap.get(key(t.orderId, t.tradeId));
        expect(f, `trade ${t.tradeId} of order ${t.orderId} missing from the ledger`).toBeDefined();
        expect(f?.qty.eq(t.qty)).toBe(true);
        expect(f?.commission.eq(t.commission)).toBe(true);
      }
      expect(fills).toHaveLength(exchangeTrades.length);
      // The strategy keeps its name across the restart; each run's tag keeps the clientIds apart.
      expect([...ledgerOrders.values()].every((o) => o.strategy === 'churn')).toBe(true);
      const tags = new Set([...ledgerOrders.keys()].map((id) => /^churn-([0-9a-z]+)-\d+$/.exec(id)?.[1] ?? `unexpected clientId ${id}`));
      expect([...tags]).toHaveLength(2);
      for (const t of tags) expect(t).toMatch(/^[0-9a-z]+$/);
    } finally {
      ledger.close();
    }
  }, 50_000);
});
