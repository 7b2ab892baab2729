/**
 * One exit-code rule for every command (README "The command line"): a bad argument is 2 with the
 * usage; a bad config is 2 naming the file, the field and the value; an operation that failed is 1.
 * Each command is run in-process; nothing here reaches a network beyond a refused loopback port.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { commands } from './commands.js';
import { runCli } from './main.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const dir = mkdtempSync(path.join(os.tmpdir(), 'kancil-exit-codes-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function file(name: string, text: string): string {
  const f = path.join(dir, name);
  writeFileSync(f, text);
  return f;
}

async function cli(argv: readonly string[]): Promise<{ code: number; err: string }> {
  let err = '';
  const code = await runCli(argv, { stdout: () => undefined, stderr: (t) => void (err += t), env: {} });
  return { code, err };
}

const STACK = /\n\s+at /;
/** A port nothing listens on: connecting is refused at once. */
const REFUSED = 'http://127.0.0.1:1';

describe('exit codes of every command', () => {
  it.each(commands.map((c) => c.name))('%s: an unknown option is 2 with the usage', async (name) => {
    const r = await cli([name, ...(name === 'ledger' ? ['archive'] : []), '--bogus']);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/--bogus/);
    expect(r.err).toMatch(/Usage: kancil /);
  });

  const runConfig = file('bad-run.yaml', 'mode: paper\nstrategies: 5\n');
  const backtestConfig = file('bad-backtest.yaml', readFileSync(path.join(root, 'config/sma-crossover.yaml'), 'utf8').replace('fast: 10', 'fast: "10"').replace('../backtest-data/', `${path.join(root, 'backtest-data')}/`));
  const grid = file('bad-grid.yaml', 'params:\n  fast: []\n');
  const configs: [string, string[], RegExp][] = [
    ['run', ['run', runConfig], /bad-run\.yaml: strategies=5: /],
    ['doctor', ['doctor', runConfig], /bad-run\.yaml: strategies=5: /],
    ['status', ['status', runConfig], /bad-run\.yaml: strategies=5: /],
    ['orders', ['orders', runConfig], /bad-run\.yaml: strategies=5: /],
    ['trades', ['trades', runConfig], /bad-run\.yaml: strategies=5: /],
    ['profit', ['profit', runConfig], /bad-run\.yaml: strategies=5: /],
    ['ledger archive', ['ledger', 'archive', '--keep-days', '7', runConfig], /bad-run\.yaml: strategies=5: /],
    ['sandbox', ['sandbox', '--config', file('bad-sandbox.yaml', 'symbols: 5\n')], /bad-sandbox\.yaml: symbols=5: /],
    ['backtest', ['backtest', backtestConfig, '--quiet'], /bad-backtest\.yaml: strategies\[0\]\.params\.fast="10": /],
    ['backtest --sweep', ['backtest', path.join(root, 'config/sma-crossover.yaml'), '--sweep', grid, '--quiet'], /bad-grid\.yaml: params\.fast=\[\]: /],
    ['download --exchange', ['download', 'klines', '--symbol', 'BTC_USDT', '--from', '2024-01-01', '--to', '2024-01-02', '--exchange', runConfig], /--exchange=".*bad-run\.yaml": /],
  ];
  it.each(configs)('%s: a bad config is 2 naming the file, field and value', async (_name, argv, want) => {
    const r = await cli(argv);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(want);
    expect(r.err).not.toMatch(STACK);
  });

  it('run: a storage.path that cannot hold a ledger is 2 naming it, before anything starts', async () => {
    const under = path.join(runConfig, 'ledger.db');
    const text = readFileSync(path.join(root, 'config/default.yaml'), 'utf8').replace('config: paper-sandbox.yaml', `config: ${path.join(root, 'config/paper-sandbox.yaml')}`).replace('path: ../var/default-paper.db', `path: ${under}`);
    let out = '';
    const code = await runCli(['run', file('bad-storage.yaml', text), '--duration', '1'], { stdout: (t) => void (out += t), stderr: (t) => void (out += t), env: {} });
    expect(code).toBe(2);
    expect(out).toContain(`bad-storage.yaml: storage.path=${JSON.stringify(under)}: cannot be created: ${runConfig} is a file, not a folder`);
  });

  it.each([['run'], ['backtest'], ['doctor'], ['status']])('%s: a config file that is missing is 2 naming it', async (name) => {
    const missing = path.join(dir, 'missing.yaml');
    const r = await cli([name, missing]);
    expect(r.code).toBe(2);
    expect(r.err).toContain(`${missing}: cannot read`);
  });

  it.each([['status'], ['orders'], ['trades'], ['profit']])('%s: a --ledger that is not there is 2 naming it', async (name) => {
    const none = path.join(dir, 'none.db');
    const r = await cli([name, '--ledger', none]);
    expect(r.code).toBe(2);
    expect(r.err).toContain(`--ledger="${none}": no ledger file there`);
  });

  it('an --base-url that does not parse as a URL is 2 naming it, not a TypeError', async () => {
    const r = await cli(['time', '--base-url', 'http://[::1']);
    expect(r.code).toBe(2);
    expect(r.err).toContain('invalid baseUrl="http://[::1": must be an http(s) URL');
    expect(r.err).not.toMatch(STACK);
  });

  it('a --ledger that is a folder is 2 naming it', async () => {
    const r = await cli(['orders', '--ledger', dir]);
    expect(r.code).toBe(2);
    expect(r.err).toContain(`--ledger="${dir}": is a folder, not a ledger file`);
  });

  const failures: [string, string[]][] = [
    ['time', ['time', '--base-url', REFUSED]],
    ['symbols', ['symbols', '--base-url', REFUSED]],
    ['download', ['download', 'klines', '--symbol', 'BTC_USDT', '--from', '2024-01-01', '--to', '2024-01-02', '--base-url', REFUSED, '--out', path.join(dir, 'k.csv')]],
    ['status (not a ledger)', ['status', '--ledger', file('not-a-ledger.db', 'this is not SQLite')]],
  ];
  it.each(failures)('%s: an operation that failed is 1, with no usage', async (_name, argv) => {
    const r = await cli(argv);
    expect(r.code).toBe(1);
    expect(r.err).not.toMatch(/Usage: kancil /);
    expect(r.err).not.toMatch(STACK);
  });
});
