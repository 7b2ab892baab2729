/**
 * The CLI as a user runs it: a child process through tsx (bin/kancil.mjs registers tsx; the
 * npm script runs `tsx src/cli/main.ts`), against a loopback server for the exchange calls.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LoopbackServer } from '../../test/support/LoopbackServer.js';

const repoRoot = resolve(fileURLToPath(new URL('.', import.meta.url)), '../..');
const bin = resolve(repoRoot, 'bin/kancil.mjs');

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs node with `args`; async so the in-process loopback server can answer meanwhile. */
function run(args: readonly string[], env: Record<string, string> = {}): Promise<Run> {
  return new Promise((done) => {
    // A clean env: no KANCIL_* from the developer's shell leaks into the assertions.
    const base = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('KANCIL_')));
    execFile(process.execPath, [...args], { cwd: repoRoot, env: { ...base, ...env }, timeout: 30_000 }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === 'number' ? err.code : -1) : 0;
      done({ code, stdout, stderr });
    });
  });
}

let server: LoopbackServer;
beforeAll(async () => {
  server = await LoopbackServer.start();
  server.on('GET', '/open/v1/common/time', () => ({ json: { code: 0, msg: 'Success', timestamp: Date.now() + 60_000 } }));
  server.on('GET', '/open/v1/common/symbols', {
    json: { code: 0, msg: 'Success', timestamp: 1, data: { list: [{ type: 1, symbol: 'BTC_IDR', baseAsset: 'BTC', quoteAsset: 'IDR', basePrecision: 8, quotePrecision: 2, filters: [{ filterType: 'PRICE_FILTER', minPrice: '1.00', maxPrice: '0', tickSize: '1.00' }], orderTypes: ['LIMIT'], spotTradingEnable: 1 }] } },
  });
});
afterAll(async () => {
  await server.close();
});

describe('kancil CLI', () => {
  it('--version prints the package version and exits 0', async () => {
    const r = await run([bin, '--version']);
    expect(r.code).toBe(0);
    const pkg = JSON.parse(readFileSync(resolve(repoRoot, 'package.json'), 'utf8')) as { version: string };
    expect(r.stdout).toBe(`kancil ${pkg.version}\n`);
  });

  it('--help prints usage listing the commands and exits 0', async () => {
    const r = await run([bin, '--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^Usage: kancil <command>/);
    expect(r.stdout).toMatch(/\n {2}time +print the exchange server time/);
    expect(r.stdout).toMatch(/\n {2}symbols +list the exchange symbols/);
  });

  it('an unknown command prints usage to stderr and exits 2', async () => {
    const r = await run([bin, 'frobnicate']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('unknown command "frobnicate"');
    expect(r.stderr).toContain('Usage: kancil <command>');
    expect(r.stdout).toBe('');
  });

  it('a bad argument prints the command usage and exits 2; a missing base URL names the option', async () => {
    const bad = await run([bin, 'time', '--no-such-flag']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("Unknown option '--no-such-flag'");
    expect(bad.stderr).toContain('Usage: kancil time');
    const missing = await run([bin, 'time']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('--base-url');
  });

  it('`kancil time --base-url` talks to the server and prints the offset (via `tsx src/cli/main.ts`)', async () => {
    const before = server.received('GET', '/open/v1/common/time').length;
    const r = await run(['--import', 'tsx', 'src/cli/main.ts', 'time', '--base-url', server.url, '--json']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout) as { serverTime: number; localTime: number; offsetMs: number };
    // The server runs 60 s ahead; the measured offset is that, give or take the round trip.
    expect(out.offsetMs).toBeGreaterThan(50_000);
    expect(out.offsetMs).toBeLessThan(70_000);
    expect(server.received('GET', '/open/v1/common/time').length).toBe(before + 1);
  });

  it('`kancil symbols` reads KANCIL_BASE_URL and prints a table; a refused connection exits 1', async () => {
    const r = await run([bin, 'symbols'], { KANCIL_BASE_URL: server.url });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/BTC_IDR +1 +1 +- +- +yes/);
    expect(r.stdout).toContain('1 symbol\n');
    const gone = await LoopbackServer.start();
    const url = gone.url;
    await gone.close();
    const down = await run([bin, 'time', '--base-url', url]);
    expect(down.code).toBe(1);
    expect(down.stderr).toMatch(/kancil time: .*network error/);
  });
});
