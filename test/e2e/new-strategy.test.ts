/**
 * `kancil new strategy` and strategies outside the project, as a user runs them (child processes
 * through bin/kancil.mjs): the generated test passes, the generated config backtests and trades,
 * and a plugin in a folder of its own imports `kancil` and kancil's dependencies (zod,
 * trading-signals) with no node_modules of its own.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../..');
const bin = path.join(root, 'bin/kancil.mjs');
const tmp = mkdtempSync(path.join(os.tmpdir(), 'kancil-new-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function run(cmd: string, args: readonly string[], cwd: string): Promise<{ code: number; out: string; err: string }> {
  return new Promise((done) => {
    execFile(cmd, [...args], { cwd, timeout: 120_000 }, (err, out, errText) => done({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, out, err: errText }));
  });
}

describe('kancil new strategy', () => {
  it('in the project: writes a strategy, a test that passes and a config, and refuses to overwrite them', async () => {
    const name = `zz-new-${process.pid}`;
    const files = [`strategies/${name}.ts`, `strategies/${name}.test.ts`, `config/${name}.yaml`].map((f) => path.join(root, f));
    try {
      const made = await run(process.execPath, [bin, 'new', 'strategy', name], root);
      expect(made.code).toBe(0);
      expect(files.every((f) => existsSync(f))).toBe(true);
      expect(readFileSync(files[0] as string, 'utf8')).toMatch(/from 'kancil';/);
      expect(readFileSync(files[2] as string, 'utf8')).toContain(`plugin: ${name}\n`);
      const again = await run(process.execPath, [bin, 'new', 'strategy', name], root);
      expect(again.code).toBe(1);
      expect(again.err).toContain('not overwriting');
      const test = await run(process.execPath, [path.join(root, 'node_modules/vitest/vitest.mjs'), 'run', `strategies/${name}.test.ts`], root);
      expect(test.out + test.err).toMatch(/2 passed/);
      expect(test.code).toBe(0);
    } finally {
      for (const f of files) rmSync(f, { force: true });
    }
  }, 120_000);

  it('in a folder of its own: the generated config backtests, trades and logs its decisions', async () => {
    const dir = path.join(tmp, 'mine');
    expect((await run(process.execPath, [bin, 'new', 'strategy', 'dipper', '--dir', dir], tmp)).code).toBe(0);
    expect(JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8'))).toMatchObject({ type: 'module' });
    const r = await run(process.execPath, [bin, 'backtest', 'config/dipper.yaml', '--quiet', '--out', path.join(dir, 'out')], dir);
    expect(r.err).not.toMatch(/failed/);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/, [1-9]\d* fills?\n/);
    expect(r.err).toMatch(/"strategy":"dipper".*"msg":"dip: buying"/);
    const list = await run(process.execPath, [bin, 'strategies', '--dir', dir], tmp);
    expect(list.err).toBe("");
    expect(list.code).toBe(0);
    expect(list.out).toMatch(/dipper {2}\(.*dipper\.ts\)\n {2}Buys a close dipBps below[^\n]*\n {2}params:\n {4}period +integer, default 20: candles in the moving average/);
    expect(list.out).toMatch(/\nsma-crossover {2}/);
  }, 120_000);

  it('a plugin outside the project resolves kancil, zod and trading-signals from kancil', async () => {
    const dir = path.join(tmp, 'plugin');
    rmSync(dir, { recursive: true, force: true });
    (await import('node:fs')).mkdirSync(dir);
    writeFileSync(path.join(dir, 'package.json'), '{ "type": "module" }\n');
    writeFileSync(
      path.join(dir, 'ema.ts'),
      `import { z } from 'zod';
import { EMA } from 'trading-signals';
import { defineStrategy } from 'kancil';
export default defineStrategy({
  name: 'ema', description: 'counts stable EMA values', params: z.object({ n: z.number().int().default(5) }),
  create(ctx) {
    const ema = new EMA(ctx.params.n);
    let stable = 0;
    return { onEvent(e) { if (e.type === 'kline' && e.closed) { ema.update(Number(e.close.toFixed()), false); if (ema.isStable) stable++; } }, onStop() { ctx.log.info({ stable }, 'done'); } };
  },
});
`,
    );
    writeFileSync(
      path.join(dir, 'cfg.yaml'),
      `mode: backtest\nlogging: { level: info, pretty: false }\nstrategies:\n  - { name: e, plugin: ./ema.ts, symbols: [BTC_USDT], budget: { USDT: "1000" }, params: { n: 3 } }\nbacktest:\n  candles: [{ symbol: BTC_USDT, interval: 1m, files: [${JSON.stringify(path.join(root, 'backtest-data/btcusdt-1m-sample.csv.gz'))}] }]\n`,
    );
    const r = await run(process.execPath, [bin, 'backtest', 'cfg.yaml', '--quiet', '--out', path.join(dir, 'out')], dir);
    expect(r.err).toMatch(/"stable":\d{4},"msg":"done"/);
    expect(r.code).toBe(0);
    // Its own zod is another copy than the one kancil runs with: a misspelt parameter is refused all the same.
    writeFileSync(path.join(dir, 'typo.yaml'), readFileSync(path.join(dir, 'cfg.yaml'), 'utf8').replace('params: { n: 3 }', 'params: { nn: 3 }'));
    const typo = await run(process.execPath, [bin, 'backtest', 'typo.yaml', '--quiet', '--out', path.join(dir, 'out-typo')], dir);
    expect(typo.err).toMatch(/typo\.yaml: strategies\[0\]\.params\.nn=3: unknown key "nn"/);
    expect(typo.code).toBe(2);
  }, 120_000);
});
