/**
 * The package as a user gets it: `npm pack`, installed into an empty folder, then run from there
 * (a plain `node first.mjs` importing `kancil`, `kancil --help`, `kancil new strategy`, a backtest
 * of the new strategy, a .ts plugin importing `kancil`, and a 3 s paper run in a terminal). A file
 * the package lacks (a compiled module, a vendored bundle, a config, a data file) fails here, not at
 * a user's first command. The install is offline from npm's cache (which `npm ci`
 * filled), with the project's locked versions, and reuses the project's compiled better-sqlite3 (the
 * same version for the same Node) instead of building it again from source.
 */
import { execFile, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT, builtIsFresh } from './builtFresh.js';
import { STACK, hasScript, inTerminal } from './terminal.js';

const run = promisify(execFile);
// Made by the test, not at load: a skipped file runs no hooks, and would leave it behind.
let tmp = '';
// The install is ~9,000 files: removing them waits on the disk once per file, which a loaded
// machine can stretch past the 30 s hook timeout (74 s here at load 11). A detached rm removes
// them after the hook returns, and outlives this test process if it must.
afterAll(() => {
  if (tmp !== '') spawn('rm', ['-rf', tmp], { detached: true, stdio: 'ignore' }).unref();
});

interface LockEntry {
  readonly dev?: boolean;
}

/** package.json and package-lock.json of an app depending on the tarball, locked to the project's versions. */
function writeApp(app: string, tgz: string): void {
  const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string; license: string; dependencies: Record<string, string>; bin: Record<string, string>; engines: Record<string, string> };
  const lock = JSON.parse(readFileSync(path.join(ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, LockEntry> };
  const spec = `file:${tgz}`;
  const integrity = `sha512-${createHash('sha512').update(readFileSync(tgz)).digest('base64')}`;
  const packages: Record<string, unknown> = {
    '': { name: 'app', dependencies: { kancil: spec } },
    'node_modules/kancil': { version: pkg.version, resolved: spec, integrity, license: pkg.license, dependencies: pkg.dependencies, bin: pkg.bin, engines: pkg.engines },
  };
  // kancil's own dependencies, where the project's install put them (hoisted), at the tested versions.
  for (const [k, v] of Object.entries(lock.packages)) if (k.startsWith('node_modules/') && v.dev !== true) packages[k] = v;
  writeFileSync(path.join(app, 'package.json'), JSON.stringify({ name: 'app', private: true, type: 'module', dependencies: { kancil: spec } }, null, 2));
  writeFileSync(path.join(app, 'package-lock.json'), JSON.stringify({ name: 'app', lockfileVersion: 3, requires: true, packages }, null, 2));
}

describe.skipIf(!builtIsFresh())('the packed package, installed into an empty folder (needs `npm run build` after the last change)', () => {
  it('installs and runs: plain node importing kancil, --help, new strategy, a backtest of it, a 3 s paper run', async () => {
    tmp = mkdtempSync(path.join(os.tmpdir(), 'kancil-pack-'));
    // --ignore-scripts: pack the build the suite checked as fresh (prepare would rebuild dist/ under the other tests).
    const { stdout } = await run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', tmp], { cwd: ROOT, maxBuffer: 64 * 1024 * 1024 });
    const packed = JSON.parse(stdout) as { filename: string; files: { path: string }[] }[];
    const files = new Set(packed[0]?.files.map((f) => f.path));
    for (const f of ['bin/kancil.mjs', 'dist/BUILT', 'dist/src/cli/main.js', 'dist/vendor/pino.js', 'dist/src/index.js', 'dist/src/testing.js', 'dist/src/indicators.js', 'config/default.yaml', 'backtest-data/btcusdt-sample.ndjson.gz', 'src/index.ts']) expect(files.has(f), f).toBe(true);
    expect([...files].filter((f) => f.endsWith('.test.ts'))).toEqual([]);

    const app = path.join(tmp, 'app');
    mkdirSync(app);
    writeApp(app, path.join(tmp, packed[0]?.filename ?? ''));
    const npmCi = ['ci', '--ignore-scripts', '--no-audit', '--no-fund'];
    await run('npm', [...npmCi, '--offline'], { cwd: app }).catch(async (err: Error) => {
      // A cache that lacks a tarball (CI runs as root with the registry reachable): fetch what is missing.
      if (!/ENOTCACHED/.test(err.message)) throw err;
      await run('npm', [...npmCi, '--prefer-offline'], { cwd: app });
    });
    const release = 'node_modules/better-sqlite3/build/Release';
    mkdirSync(path.join(app, release), { recursive: true });
    copyFileSync(path.join(ROOT, release, 'better_sqlite3.node'), path.join(app, release, 'better_sqlite3.node'));

    // A trader's first script, plain Node (no tsx): `kancil` and `kancil/testing` are the compiled modules.
    const first = `import { Decimal } from 'kancil';
import { fromBars, SMA } from 'kancil/indicators';
import { fakeContext } from 'kancil/testing';
const sma = fromBars(new SMA(3), { symbol: 'BTC_USDT', interval: '1m' });
for (const c of [1, 2, 3, 4]) sma.update({ type: 'kline', symbol: 'BTC_USDT', interval: '1m', closed: true, close: new Decimal(c) });
console.log(\`sma \${sma.value} place \${typeof fakeContext({}).place}\`);
`;
    writeFileSync(path.join(app, 'first.mjs'), first);
    expect((await run(process.execPath, ['first.mjs'], { cwd: app })).stdout).toBe('sma 3 place function\n');

    // The installed package runs its compiled modules whatever times npm gave the files: a source
    // newer than the build (as an install can leave it) that would fail if it ran.
    const sourceMain = path.join(app, 'node_modules/kancil/src/cli/main.ts');
    writeFileSync(sourceMain, `throw new Error('the installed kancil ran its sources');\n`);
    utimesSync(sourceMain, new Date(), new Date(Date.now() + 7_200_000));
    const bin = path.join(app, 'node_modules/.bin/kancil');
    const env = { ...process.env, KANCIL_FROM_SOURCE: '' };
    const help = await run(bin, ['--help'], { cwd: app, env });
    expect(help.stdout).toMatch(/^Usage: kancil <command>/);
    await run(bin, ['new', 'strategy', 'my-idea'], { cwd: app, env });
    expect(existsSync(path.join(app, 'strategies/my-idea.ts'))).toBe(true);
    const bt = await run(bin, ['backtest', 'config/my-idea.yaml', '--quiet'], { cwd: app, env, maxBuffer: 64 * 1024 * 1024 });
    expect(bt.stdout).toMatch(/backtest my-idea: .* fills/);
    expect(existsSync(path.join(app, 'reports/my-idea/report.html'))).toBe(true);
    // Once more with the build newer than every source: the same compiled path, the same output.
    const built = path.join(app, 'node_modules/kancil/dist/BUILT');
    utimesSync(built, new Date(), new Date(Date.now() + 3_600_000));
    const btCompiled = await run(bin, ['backtest', 'config/my-idea.yaml', '--quiet'], { cwd: app, env, maxBuffer: 64 * 1024 * 1024 });
    expect(btCompiled.stdout).toBe(bt.stdout);

    const paper = `${bin} run node_modules/kancil/config/default.yaml --duration 3`;
    const r = hasScript ? await inTerminal(paper, app, 120_000, env) : await run('sh', ['-c', paper], { cwd: app, env }).then((x) => ({ code: 0, out: x.stdout + x.stderr }));
    expect(r.out).not.toMatch(STACK);
    expect(r.out).toMatch(/run stopped \(duration 3 s\)/);
    expect(r.code).toBe(0);
  }, 240_000);
});
