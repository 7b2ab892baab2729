/**
 * A backtest's result.json says what produced it (config as run, the strategy's parameters with
 * their defaults, every input file's size and SHA-256, the code version), and
 * `kancil backtest --rerun result.json` repeats the run from that record alone: byte-identical when
 * nothing changed, and when an input changed, the command says which file and fails.
 */
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createHash } from 'node:crypto';
import { gunzipSync, gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { command } from '../../src/cli/backtest.js';
import type { RunProvenance } from '../../src/backtest/provenance.js';

const root = path.resolve(import.meta.dirname, '../..');
const dir = mkdtempSync(path.join(os.tmpdir(), 'kancil-rerun-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function run(args: readonly string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await command.run(args, { stdout: (t) => out.push(t), stderr: (t) => err.push(t), env: {} });
  return { code, out: out.join(''), err: err.join('') };
}

describe('kancil backtest --rerun', () => {
  // The bundled candles, a copy of our own (so the test may change it), and the SMA config over it.
  const data = path.join(dir, 'bars.csv.gz');
  copyFileSync(path.join(root, 'backtest-data/btcusdt-1m-sample.csv.gz'), data);
  const cfg = path.join(dir, 'sma.yaml');
  writeFileSync(
    cfg,
    readFileSync(path.join(root, 'config/sma-crossover.yaml'), 'utf8')
      .replace(/files: \[[^\]]*\]/, 'files: [bars.csv.gz]')
      .replace(/output: .*/, 'output: first'),
  );

  it('result.json records the config as run, parameters with defaults, inputs with SHA-256 and the code', async () => {
    const r = await run([cfg, '--quiet', '--out', path.join(dir, 'first')]);
    expect(r.code, r.err).toBe(0);
    const prov = (JSON.parse(readFileSync(path.join(dir, 'first/result.json'), 'utf8')) as { provenance: RunProvenance }).provenance;
    expect(prov.configFile).toBe(cfg);
    // Defaults the YAML does not give are filled in: fees, latency, queue and fill models.
    expect(prov.config.backtest.fees).toEqual({ makerBps: 10, takerBps: 10 });
    expect(prov.config.backtest.queueModel).toEqual({ type: 'riskAverse' });
    expect(prov.config.backtest.fillModel).toBe('kancil');
    expect(prov.strategies[0]?.params).toMatchObject({ fast: 10, slow: 50, kind: 'SMA', interval: '1m', quantity: '0.1' });
    const sha = createHash('sha256').update(readFileSync(data)).digest('hex');
    expect(prov.inputs).toContainEqual({ role: 'backtest.candles', path: data, bytes: readFileSync(data).length, sha256: sha });
    expect(prov.inputs.map((i) => i.role)).toContain('strategies.sma.plugin');
    expect(prov.kancil.version).toBe((JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { version: string }).version);
    // The report shows the same record.
    const html = readFileSync(path.join(dir, 'first/report.html'), 'utf8');
    expect(html).toContain(sha);
    expect(html).toContain('riskAverse');
  }, 120_000);

  it('repeats the run byte for byte, and says which input changed when one did', async () => {
    const first = path.join(dir, 'first/result.json');
    const same = await run(['--rerun', first, '--out', path.join(dir, 'again')]);
    expect(same.err).toBe('');
    expect(same.out).toMatch(/byte-identical/);
    expect(same.code).toBe(0);
    expect(readFileSync(path.join(dir, 'again/result.json'))).toEqual(readFileSync(first));

    // One bar's close moved by a cent: same size class of file, other bytes.
    const text = gunzipSync(readFileSync(data)).toString('utf8');
    const lines = text.split('\n');
    const f = (lines[500] as string).split(',');
    f[4] = (Number(f[4]) + 0.01).toFixed(2);
    lines[500] = f.join(',');
    writeFileSync(data, gzipSync(lines.join('\n')));
    const moved = await run(['--rerun', first, '--out', path.join(dir, 'moved')]);
    expect(moved.code).toBe(1);
    expect(moved.out).toMatch(/DIFFERS in .*provenance/);
    expect(moved.out).toContain(`input ${data} changed`);
  }, 180_000);

  it('refuses a file without a record, naming it', async () => {
    const bare = path.join(dir, 'bare.json');
    writeFileSync(bare, '{"name":"x"}');
    const r = await run(['--rerun', bare]);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/--rerun=".*bare\.json": has no provenance record/);
    expect(r.err).toContain('Usage: kancil backtest');
    expect((await run(['--rerun', bare, cfg])).code).toBe(2);
  });
});
