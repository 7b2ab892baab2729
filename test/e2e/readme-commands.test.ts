/**
 * The README's commands from the built package, as a person runs them: in a terminal (a pty, so
 * pino-pretty, progress bars and tables take their terminal paths) and with stdout closed early
 * (`| head -1`). Each must do its work or refuse with a message, never print a stack; a closed
 * stdout ends it quietly (status 141, as coreutils) or, for a run, stops it gracefully.
 * `npm start` in a terminal prints its summary and exits 0; a run asked for 30 days keeps running.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSandboxConfig, startSandbox, type RunningSandbox } from '../../src/sandbox/index.js';
import { ROOT, builtIsFresh } from './builtFresh.js';
import { STACK, hasScript, inTerminal, interruptedInTerminal, withClosedStdout } from './terminal.js';

const ready = builtIsFresh() && hasScript;
const BIN = path.join(ROOT, 'bin/kancil.mjs');
const LEDGER = path.join(ROOT, 'var/default-paper.db');
const kancil = (args: string): string => `node ${BIN} ${args}`;
// Made in beforeAll, not at load: a skipped file runs no hooks, and would leave it behind.
let tmp = '';

/** The `reason` of the last stop row in the demo ledger. */
function lastStop(): string | undefined {
  const db = new Database(LEDGER, { readonly: true });
  try {
    const row = db.prepare("SELECT data FROM journal WHERE kind = 'stop' ORDER BY id DESC LIMIT 1").get() as { data: string } | undefined;
    return row === undefined ? undefined : (JSON.parse(row.data) as { reason?: string }).reason;
  } finally {
    db.close();
  }
}

// Generous: each test runs the CLI several times on two loaded cores.
describe.skipIf(!ready)('README commands from the built package (needs `npm run build` after the last change, and `script` from util-linux)', { timeout: 300_000 }, () => {
  let sandbox: RunningSandbox;
  let base = '';
  let market = '';
  beforeAll(async () => {
    tmp = mkdtempSync(path.join(os.tmpdir(), 'kancil-readme-'));
    sandbox = await startSandbox(loadSandboxConfig(path.join(ROOT, 'config/sandbox.yaml')));
    base = sandbox.urls.base_url;
    market = sandbox.urls.market_url;
  }, 120_000);
  afterAll(async () => {
    await sandbox?.stop();
    if (tmp !== '') rmSync(tmp, { recursive: true, force: true });
  }, 120_000);

  it('npm start in a terminal prints its summary and exits 0, with a stop row in the ledger', async () => {
    const r = await inTerminal('npm start -- --duration 2', ROOT, 180_000);
    expect(r.out).not.toMatch(STACK);
    expect(r.out).toMatch(/run stopped \(duration 2 s\) after [\d.]+ s/);
    expect(r.code).toBe(0);
    expect(lastStop()).toBe('duration 2 s');
  });

  it('a run whose stdout is closed stops gracefully: stop row, no stack, exit 0', async () => {
    const r = await withClosedStdout(['node', BIN, 'run', 'config/default.yaml', '--duration', '600'], ROOT, 180_000);
    expect(r.err).not.toMatch(STACK);
    expect(r.code).toBe(0);
    expect(lastStop()).toBe('stdout closed');
  });

  it('a run asked for 30 days is still running after its first status, and stops on SIGINT with its summary', async () => {
    const child = spawn(process.execPath, [BIN, 'run', 'config/default.yaml', '--duration', '2592000'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (out += c.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    // Started: the session logs its first status line (every 5 s), then 2 s more. 30 days are past
    // a Node timer's limit, which would fire at once (src/core/longTimer.test.ts covers longer spans).
    const started = new Promise<void>((resolve) => child.stdout.on('data', () => out.includes('"msg":"status"') && resolve()));
    await Promise.race([started, exited.then(() => Promise.reject(new Error(`the run exited before it started:\n${out.slice(-2000)}`)))]);
    const stillRunning = await Promise.race([exited.then(() => false), new Promise<boolean>((r) => setTimeout(() => r(true), 2000))]);
    expect(stillRunning, out.slice(-2000)).toBe(true);
    child.kill('SIGINT');
    expect(await exited).toBe(0);
    expect(out).toMatch(/run stopped \(signal SIGINT\)/);
  });

  // Each README command with arguments that work here: [name, shell args, exit status in a terminal].
  const commands = (): [string, string, number][] => [
    ['--help', '--help', 0],
    ['--version', '--version', 0],
    ['time', `time --base-url ${base}`, 0],
    ['symbols', `symbols --base-url ${base}`, 0],
    ['strategies', 'strategies', 0],
    ['status', `status --ledger ${LEDGER}`, 0],
    ['orders', `orders --ledger ${LEDGER}`, 0],
    ['trades', `trades --ledger ${LEDGER}`, 0],
    ['profit', `profit --ledger ${LEDGER}`, 0],
    ['backtest', `backtest config/sma-crossover.yaml --out ${path.join(tmp, 'bt')}`, 0],
    ['download', `download klines --symbol BTC_USDT --from 2024-08-09 --to 2024-08-10 --base-url ${base} --market-url ${market} --out ${path.join(tmp, 'k.csv')}`, 0],
    ['bad argument', 'orders --bogus', 2],
  ];

  it('every command in a terminal does its work without a stack', async () => {
    for (const [name, args, code] of commands()) {
      const r = await inTerminal(kancil(args), ROOT);
      expect(r.out, name).not.toMatch(STACK);
      expect(r.code, `${name}: ${r.out.slice(-1500)}`).toBe(code);
    }
  });

  it('every command with its stdout closed ends quietly: no stack, status 141 (or its own status if it printed nothing)', async () => {
    for (const [name, args, code] of commands()) {
      const r = await withClosedStdout(['sh', '-c', kancil(args)], ROOT);
      expect(r.err, name).not.toMatch(STACK);
      expect([141, code], `${name}: ${r.err.slice(-1500)}`).toContain(r.code);
    }
  });

  it('the sandbox and the recorder, long-running commands, in a terminal and through a closed pipe', async () => {
    const sb = await interruptedInTerminal(kancil('sandbox --config config/sandbox.yaml'), ROOT, /"base_url":"http:\/\/127\.0\.0\.1:\d+"/);
    expect(sb.out).not.toMatch(STACK);
    expect(sb.out).toMatch(/"base_url":"http:\/\/127\.0\.0\.1:\d+"/);
    expect(sb.code).toBe(0);
    const closed = await withClosedStdout(['node', BIN, 'sandbox', '--config', 'config/sandbox.yaml'], ROOT);
    expect(closed.err).not.toMatch(STACK);
    expect(closed.code).toBe(141);

    const u = sandbox.urls;
    const rec = path.join(tmp, 'record.yaml');
    writeFileSync(rec, `out: ${path.join(tmp, 'rec')}\nurls: { base_url: ${u.base_url}, market_url: ${u.market_url}, depth_url: ${u.depth_url}, stream_url: ${u.stream_url} }\nsymbols: [{ symbol: BTC_USDT, type: 1 }]\nstatusEveryMs: 300\n`);
    const term = await interruptedInTerminal(kancil(`record --config ${rec}`), ROOT, /"recording":true/);
    expect(term.out).not.toMatch(STACK);
    expect(term.out).toMatch(/"recording":true/);
    expect(term.code).toBe(0);
    const piped = await withClosedStdout(['timeout', '--preserve-status', '-s', 'INT', '30', 'node', BIN, 'record', '--config', rec], ROOT);
    expect(piped.err).not.toMatch(STACK);
    // The closed stdout stopped it as a signal does: files flushed, exit 0, well before the 30 s.
    expect(piped.code).toBe(0);
    expect(piped.err).toMatch(/recording flushed/);
  });
});
