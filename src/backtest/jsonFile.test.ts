import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { writeJsonFile } from './jsonFile.js';
import { runBacktest } from './Backtest.js';
import { loadBacktestConfig } from './config.js';

const dir = mkdtempSync(path.join(tmpdir(), 'kancil-json-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');

function roundTrip(value: unknown): string {
  const f = path.join(dir, 'v.json');
  writeJsonFile(f, value);
  return readFileSync(f, 'utf8');
}

describe('writeJsonFile', () => {
  it('writes what JSON.stringify(value, null, 2) gives, byte for byte, for any JSON-like value', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (v) => {
        expect(roundTrip(v)).toBe(`${JSON.stringify(v, null, 2)}\n`);
      }),
      { numRuns: 300 },
    );
    const odd = { a: undefined, b: [undefined, () => 1, 'x', { c: undefined, d: [] }], e: [], f: {}, g: 'line\nbreak', h: [[1, [2]], { i: [3] }] };
    expect(roundTrip(odd)).toBe(`${JSON.stringify(odd, null, 2)}\n`);
    expect(roundTrip({})).toBe('{}\n');
    const big = { rows: Array.from({ length: 5000 }, (_, i) => ({ t: i, v: [i / 3, -i] })) };
    expect(roundTrip(big)).toBe(`${JSON.stringify(big, null, 2)}\n`);
  });

  it('a backtest result (getters, Decimals as text, nested metrics) is written as JSON.stringify writes it', async () => {
    const cfg = loadBacktestConfig(path.join(root, 'config/market-maker.yaml'));
    const r = await runBacktest({ ...cfg, backtest: { ...cfg.backtest, output: undefined } }, { writeOutput: false });
    expect(r.fills.length).toBeGreaterThan(0);
    expect(roundTrip(r)).toBe(`${JSON.stringify(r, null, 2)}\n`);
  });

  it('writes lists given apart in place of their fields, as JSON.stringify would the fields', () => {
    const f = path.join(dir, 'l.json');
    fc.assert(
      fc.property(fc.array(fc.jsonValue(), { maxLength: 5 }), fc.array(fc.tuple(fc.string(), fc.array(fc.jsonValue(), { maxLength: 4 })), { maxLength: 3 }), (items, groupList) => {
        const groups = [...new Map(groupList.filter(([k]) => !/^\d+$/.test(k))).entries()];
        const value = { a: 1, items: 'never read', b: [2, 3], groups: null, c: undefined };
        writeJsonFile(f, value, { items: { items: () => items }, groups: { groups: groups.map(([k, xs]) => [k, () => xs] as const) } });
        const whole = { a: 1, items, b: [2, 3], groups: Object.fromEntries(groups) };
        expect(readFileSync(f, 'utf8')).toBe(`${JSON.stringify(whole, null, 2)}\n`);
      }),
      { numRuns: 200 },
    );
  });
});
