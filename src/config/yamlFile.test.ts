import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../core/errors.js';
import { loadGrid } from '../backtest/sweepGrid.js';
import { loadRecordConfig } from '../record/config.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'kancil-yaml-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function errorOf(f: () => unknown): ConfigError {
  try {
    f();
  } catch (e) {
    if (e instanceof ConfigError) return e;
    throw e;
  }
  throw new Error('expected a ConfigError');
}

function file(name: string, text: string): string {
  const f = path.join(dir, name);
  writeFileSync(f, text);
  return f;
}

describe('loadYamlFile (recorder config, sweep grid)', () => {
  it('a recorder config error names the file, the path, the value and the line', () => {
    const f = file('rec.yaml', 'urls:\n  base_url: https://a.test\n  market_url: https://b.test\n  depth_url: https://c.test\n  stream_url: wss://d.test\nsymbols:\n  - { symbol: BTC_IDR, type: 4 }\n');
    const e = errorOf(() => loadRecordConfig(f));
    expect(e.file).toBe(f);
    expect(e.path).toBe('symbols[0].type');
    expect(e.value).toBe(4);
    expect(e.message).toMatch(/\(line 7, column \d+\)$/);
  });

  it('a recorder config refuses an unknown key, at any level', () => {
    const base = 'urls:\n  base_url: https://a.test\n  market_url: https://b.test\n  depth_url: https://c.test\n  stream_url: wss://d.test\nsymbols:\n  - { symbol: BTC_IDR, type: 1 }\n';
    expect(errorOf(() => loadRecordConfig(file('rec-top.yaml', `${base}snapshots: { everyMs: 1000 }\n`))).path).toBe('snapshots');
    expect(errorOf(() => loadRecordConfig(file('rec-nested.yaml', `${base}rotate: { maxByte: 10 }\n`))).path).toBe('rotate.maxByte');
    expect(loadRecordConfig(file('rec-ok.yaml', base)).symbols).toEqual([{ symbol: 'BTC_IDR', type: 1 }]);
  });

  it('a grid error names the path and the value; a missing file names the file', () => {
    const f = file('grid.yaml', 'params:\n  spreadBps: []\nrankBy: netPnl\n');
    const e = errorOf(() => loadGrid(f));
    expect(e.path).toBe('params.spreadBps');
    expect(e.value).toEqual([]);
    expect(loadGrid(file('ok.yaml', 'params:\n  spreadBps: [1, 2]\n')).params).toEqual({ spreadBps: [1, 2] });
    expect(errorOf(() => loadGrid(path.join(dir, 'none.yaml'))).file).toBe(path.join(dir, 'none.yaml'));
  });

  it('an error of the whole file (missing, a folder) names the file and says what is wrong, with no field=value', () => {
    const none = path.join(dir, 'none.yaml');
    expect(errorOf(() => loadGrid(none)).message).toBe(`${none}: cannot read: ENOENT: no such file or directory, open '${none}'`);
    expect(errorOf(() => loadGrid(dir)).message).toBe(`${dir}: not a regular file`);
  });
});
