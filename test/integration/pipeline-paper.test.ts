/**
 * Paper mode through the real command: `kancil run` with an in-process sandbox replaying the
 * bundled recording (what `npm start` does), market data over loopback WebSockets, fills from
 * the matching engine against the live book, the same ledger as live. Runs a few seconds, then
 * checks the exit code, the printed summary and the journal.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { readFileSync } from 'node:fs';
import { runCommand } from '../../src/cli/run.js';
import { Ledger } from '../../src/store/Ledger.js';
import { logSink } from './pipeline-harness.js';
import { ZERO } from '../../src/core/decimal.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const dir = mkdtempSync(path.join(tmpdir(), 'kancil-paper-'));

afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** `kancil run <file> --duration <sec>`: exit code, printed output and log lines. */
async function run(file: string, durationSec: string): Promise<{ code: number; out: string; logs: string }> {
  let out = '';
  const logs: string[] = [];
  const code = await runCommand([file, '--duration', durationSec], { stdout: (t) => (out += t), stderr: (t) => (out += t), env: {} }, logSink(logs));
  return { code, out, logs: logs.join('') };
}

describe('paper mode (npm start configuration)', () => {
  it('runs the default config on paper against the in-process sandbox and journals everything', async () => {
    // The default config, with its ledger moved to a temporary folder.
    // A second market maker whose own limit refuses every order: its refusals reach the summary by reason.
    const doc = parse(readFileSync(path.join(repoRoot, 'config/default.yaml'), 'utf8')) as { strategies: Record<string, unknown>[] };
    doc.strategies.push({ ...doc.strategies[0], name: 'tiny', risk: { maxOrderNotional: '1' } });
    const file = path.join(dir, 'paper.yaml');
    writeFileSync(file, stringify({ ...doc, sandbox: { config: path.join(repoRoot, 'config/paper-sandbox.yaml') }, storage: { path: path.join(dir, 'paper.db') }, logging: { level: 'info' }, console: { port: 0 } }));
    const { code, out, logs } = await run(file, '2');
    expect(code, out + logs).toBe(0);
    expect(out).toMatch(/run stopped \(duration 2 s\)/);
    expect(logs).toContain('"mode":"paper"');
    expect(out).toMatch(/\n {2}tiny refused: MAX_ORDER_NOTIONAL \d+ \(first: order value [\d.]+ USDT is above maxOrderNotional 1\)\n/);

    const ledger = Ledger.open(path.join(dir, 'paper.db'));
    try {
      const orders = ledger.orders();
      expect(orders.length).toBeGreaterThan(0);
      expect(orders.every((o) => o.venue === 'sim' && o.strategy === 'mm')).toBe(true);
      // Shutdown cancelled what was open: nothing is left live.
      expect(ledger.openOrders()).toHaveLength(0);
      expect(ledger.count('intents')).toBeGreaterThanOrEqual(orders.length);
      expect(ledger.count('risk_decisions')).toBe(ledger.count('intents'));
      expect(ledger.countJournal('start')).toBe(1);
      expect(ledger.countJournal('stop')).toBe(1);
      // Each order's executed quantity equals the sum of its recorded fills.
      for (const o of orders) expect(ledger.fills(o.clientId).reduce((a, f) => a.plus(f.qty), ZERO).eq(o.cumQty)).toBe(true);
    } finally {
      ledger.close();
    }
  }, 30_000);

  it('stops when the sandbox replay played once has ended, through the same shutdown, with the reason', async () => {
    // The npm start sandbox, replayed once at 15x (120 s of recording in 8 s: long enough that a
    // start-up slowed by a loaded machine still trades before the end); the run's duration is far
    // longer than the test's timeout, so only the end of the replay can stop it in time.
    const sbx = parse(readFileSync(path.join(repoRoot, 'config/paper-sandbox.yaml'), 'utf8')) as { market: { replay: Record<string, unknown> }[] };
    for (const m of sbx.market) Object.assign(m.replay, { file: path.join(repoRoot, 'backtest-data', path.basename(String(m.replay.file))), loop: false, speed: 15 });
    const sbxFile = path.join(dir, 'once-sandbox.yaml');
    writeFileSync(sbxFile, stringify(sbx));
    const doc = parse(readFileSync(path.join(repoRoot, 'config/default.yaml'), 'utf8')) as Record<string, unknown>;
    const file = path.join(dir, 'once.yaml');
    writeFileSync(file, stringify({ ...doc, sandbox: { config: sbxFile }, storage: { path: path.join(dir, 'once.db') }, logging: { level: 'info' }, console: { port: 0 } }));
    const { code, out, logs } = await run(file, '3600');
    expect(code, out + logs).toBe(0);
    expect(out).toMatch(/run stopped \(replay ended\)/);
    expect(logs).toContain('the sandbox replay played its last event');
    const ledger = Ledger.open(path.join(dir, 'once.db'));
    try {
      // The signal's shutdown path: strategies stopped, open orders canceled (cancelOnShutdown), journal closed.
      expect(ledger.orders().length).toBeGreaterThan(0);
      expect(ledger.openOrders()).toHaveLength(0);
      expect(ledger.countJournal('stop')).toBe(1);
    } finally {
      ledger.close();
    }
  }, 60_000);
});
