import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../core/errors.js';
import { latencyModel, readLatencyFile } from './latency.js';

const dir = mkdtempSync(path.join(tmpdir(), 'kancil-latency-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const draws = (f: () => number, n: number): number[] => Array.from({ length: n }, f);
const quantile = (xs: number[], p: number): number => [...xs].sort((a, b) => a - b)[Math.floor(p * xs.length)] as number;

describe('latency model', () => {
  it('constants are returned as given', () => {
    const m = latencyModel({ entryMs: 20, cancelMs: 7.5, ackMs: 0 });
    expect([m.entry(), m.cancel(), m.ack(), m.entry()]).toEqual([20, 7.5, 0, 20]);
  });

  it('a log-normal draw has the configured median and 99th percentile, in whole ms, the same for the same seed', () => {
    const spec = { entryMs: { median: 4, p99: 40 }, cancelMs: 0, ackMs: 0, seed: 7 };
    const xs = draws(latencyModel(spec).entry, 20_000);
    expect(xs.every((x) => Number.isInteger(x) && x >= 0)).toBe(true);
    expect(quantile(xs, 0.5)).toBe(4);
    expect(quantile(xs, 0.99)).toBeGreaterThanOrEqual(36);
    expect(quantile(xs, 0.99)).toBeLessThanOrEqual(44);
    expect(draws(latencyModel(spec).entry, 100)).toEqual(xs.slice(0, 100));
    expect(draws(latencyModel({ ...spec, seed: 8 }).entry, 100)).not.toEqual(xs.slice(0, 100));
  });

  it('entry, cancel and report draws are independent streams: drawing cancels does not move the entry draws', () => {
    const spec = { entryMs: { median: 5, p99: 50 }, cancelMs: { median: 5, p99: 50 }, ackMs: 1, seed: 3 };
    const a = latencyModel(spec);
    const b = latencyModel(spec);
    const onlyEntries = draws(a.entry, 50);
    const mixed: number[] = [];
    for (let i = 0; i < 50; i++) {
      b.cancel();
      mixed.push(b.entry());
    }
    expect(mixed).toEqual(onlyEntries);
  });

  it('a recorded latency file is drawn from (seeded), comments and blank lines skipped', () => {
    const f = path.join(dir, 'lat.txt');
    writeFileSync(f, '# measured round trips\n3\n5.4\n\n11\n');
    expect(readLatencyFile(f, 'latency.entryMs')).toEqual([3, 5.4, 11]);
    const xs = draws(latencyModel({ entryMs: { file: f }, cancelMs: 0, ackMs: 0 }).entry, 3000);
    expect(new Set(xs)).toEqual(new Set([3, 5, 11]));
  });

  it("a recorded latency file in recorded order gives its values one after another, in the file's order, then from the first again", () => {
    const f = path.join(dir, 'seq.txt');
    writeFileSync(f, '# per order of a live run\n8\n120\n2.6\n');
    const m = latencyModel({ entryMs: { file: f, order: 'recorded' }, cancelMs: { file: f, order: 'recorded' }, ackMs: 0 });
    expect([m.entry(), m.cancel(), m.entry(), m.entry(), m.entry(), m.cancel()]).toEqual([8, 8, 120, 3, 8, 120]);
    expect(new Set(draws(latencyModel({ entryMs: { file: f, order: 'random' }, cancelMs: 0, ackMs: 0 }).entry, 300))).toEqual(new Set([8, 120, 3]));
  });

  it('a bad latency file is a ConfigError naming the file, the line and the value', () => {
    const f = path.join(dir, 'bad.txt');
    writeFileSync(f, '3\n-2\n');
    expect(() => readLatencyFile(f, 'latency.ackMs')).toThrow(ConfigError);
    expect(() => readLatencyFile(f, 'latency.ackMs')).toThrow(/latency\.ackMs line 2.*-2/);
    expect(() => latencyModel({ entryMs: { file: path.join(dir, 'missing.txt') }, cancelMs: 0, ackMs: 0 })).toThrow(/cannot read the latency file/);
    expect(() => latencyModel({ entryMs: { median: 5, p99: 2 }, cancelMs: 0, ackMs: 0 })).toThrow(/latency\.entryMs/);
  });
});
