/**
 * Hostile files and a busy port given to the CLI: each is refused with a message naming the file
 * (or the port and the setting to change) and the exit code a supervisor can act on (2: the config
 * is wrong, do not restart; 1: the operation failed), never an uncaught exception with a stack.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from './main.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const dir = mkdtempSync(path.join(os.tmpdir(), 'kancil-hostile-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function file(name: string, text: string | Buffer): string {
  const f = path.join(dir, name);
  writeFileSync(f, text);
  return f;
}

async function cli(argv: readonly string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runCli(argv, { stdout: (t) => void (out += t), stderr: (t) => void (err += t), env: {} });
  return { code, out, err };
}

const STACK = /\n\s+at /;
const BOMB = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]', ...'bcdefghi'.split('').map((c, i) => `${c}: &${c} [${Array(9).fill(`*${'abcdefghi'[i]}`).join(',')}]`)].join('\n');

describe('hostile config files', () => {
  // A bad config is exit 2 from every command.
  it.each([['run', 2], ['sandbox', 2], ['backtest', 2]])('a YAML alias bomb given to %s is a config error (exit %i) naming the file', async (cmd, code) => {
    const f = file(`bomb-${cmd}.yaml`, `${BOMB}\n`);
    const r = await cli(cmd === 'sandbox' ? [cmd, '--config', f] : [cmd, f]);
    expect(r.code).toBe(code);
    expect(r.err).toContain(`${f}: `);
    expect(r.err).toMatch(/aliases expand too far/);
    expect(r.err).not.toMatch(STACK);
  });

  it('an oversized document and 100,000 nested brackets are config errors naming the file', async () => {
    const big = file('big.yaml', `mode: paper\nx: "${'x'.repeat(300_000)}"\n`);
    const deep = file('deep.yaml', `mode: paper\nx: ${'['.repeat(100_000)}${']'.repeat(100_000)}\n`);
    for (const [f, why] of [[big, /bytes: a config file may hold at most/], [deep, /nested 100000 deep/]] as const) {
      const r = await cli(['run', f]);
      expect(r.code).toBe(2);
      expect(r.err).toContain(f);
      expect(r.err).toMatch(why);
    }
    const dev = await cli(['run', '/dev/zero']);
    expect(dev.code).toBe(2);
    expect(dev.err).toMatch(/\/dev\/zero: .*not a regular file/);
  });

  it('a plugin path that is not a module file (/etc/passwd) is refused, not imported', async () => {
    const f = file('passwd.yaml', `mode: paper\nsandbox: { config: ${JSON.stringify(path.join(root, 'config/paper-sandbox.yaml'))} }\nstrategies:\n  - { name: p, plugin: /etc/passwd, symbols: [BTC_USDT] }\nstorage: { path: ':memory:' }\nlogging: { level: silent }\n`);
    const r = await cli(['run', f]);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/strategies\[0\]\.plugin="\/etc\/passwd": \/etc\/passwd is not a module file: a plugin is a \.ts, \.mts, \.js or \.mjs file/);
  });
});

describe('a port in use', () => {
  it('the sandbox names the address and the setting to change (exit 1, no stack)', async () => {
    const busy = net.createServer();
    await new Promise<void>((r) => busy.listen(0, '127.0.0.1', r));
    const port = (busy.address() as net.AddressInfo).port;
    try {
      const text = readFileSync(path.join(root, 'config/sandbox.yaml'), 'utf8').replace(/ports: \{ base: 0,/, `ports: { base: ${port},`);
      const f = file('sandbox-busy.yaml', text.replaceAll('../backtest-data/', `${path.join(root, 'backtest-data')}/`));
      const r = await cli(['sandbox', '--config', f]);
      expect(r.code).toBe(1);
      expect(r.err).toContain(`127.0.0.1:${port}`);
      expect(r.err).toMatch(/EADDRINUSE.*set server\.ports\.base in the sandbox config to a free port/);
      expect(r.err).not.toMatch(STACK);
    } finally {
      await new Promise((r) => busy.close(r));
    }
  });
});

describe('a recording cut short', () => {
  it('a backtest over a truncated .gz names the file and the line (exit 1)', async () => {
    const cut = file('cut.ndjson.gz', readFileSync(path.join(root, 'backtest-data/btcusdt-sample.ndjson.gz')).subarray(0, 100_000));
    const cfg = readFileSync(path.join(root, 'config/market-maker.yaml'), 'utf8').replace('../backtest-data/btcusdt-sample.ndjson.gz', cut).replace(/output: .*/, `output: ${path.join(dir, 'out')}`);
    const r = await cli(['backtest', file('cut.yaml', cfg), '--quiet']);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(new RegExp(`${cut.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: line \\d+: the gzip data is cut short or corrupt`));
    expect(r.err).not.toMatch(STACK);
  });
});
