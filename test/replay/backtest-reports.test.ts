/**
 * The reports of every bundled backtest config (config/*.yaml with mode backtest), as a user gets
 * them from the bundled data: no open number (NaN, Infinity, negative zero) in the result, since
 * JSON.stringify would silently turn it into null or 0 and a reader would take it for a figure;
 * every decimal string a plain finite decimal; the JSON reads back as the very result; the HTML
 * loads nothing from the network (scripts and data inline).
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runBacktest, writeReports } from '../../src/backtest/Backtest.js';
import type { BacktestResult } from '../../src/backtest/result.js';
import { loadBacktestConfig } from '../../src/backtest/config.js';
import { renderHtmlReport } from '../../src/backtest/htmlReport.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const configDir = path.join(repoRoot, 'config');
const configs = readdirSync(configDir).filter((f) => f.endsWith('.yaml') && /^mode: backtest$/m.test(readFileSync(path.join(configDir, f), 'utf8')));

/** Every number of `x` that JSON cannot carry as itself, by path. */
function openNumbers(x: unknown, at = '$'): string[] {
  if (typeof x === 'number') return Number.isFinite(x) && !Object.is(x, -0) ? [] : [`${at}=${Object.is(x, -0) ? '-0' : String(x)}`];
  if (Array.isArray(x)) return x.flatMap((v, i) => openNumbers(v, `${at}[${i}]`));
  if (typeof x === 'object' && x !== null) return Object.entries(x).flatMap(([k, v]) => openNumbers(v, `${at}.${k}`));
  return [];
}

/** Decimal-string fields that are not a plain finite decimal (or read as a negative zero). */
function badDecimals(x: unknown, at = '$'): string[] {
  const DECIMAL_KEYS = new Set(['initialEquity', 'finalEquity', 'realizedPnl', 'unrealizedPnl', 'fees', 'netPnl', 'maxDrawdown', 'turnover', 'price', 'qty', 'fee', 'quantity', 'filledQty']);
  if (Array.isArray(x)) return x.flatMap((v, i) => badDecimals(v, `${at}[${i}]`));
  if (typeof x !== 'object' || x === null) return [];
  const out: string[] = [];
  for (const [k, v] of Object.entries(x)) {
    const p = `${at}.${k}`;
    if (typeof v === 'string' && (DECIMAL_KEYS.has(k) || at.endsWith('.positions'))) {
      if (!/^-?\d+(\.\d+)?$/.test(v) || /^-0(\.0+)?$/.test(v)) out.push(`${p}=${v}`);
    } else out.push(...badDecimals(v, p));
  }
  return out;
}

describe('reports of the bundled backtest configs', () => {
  it('finds the bundled backtest configs', () => {
    expect(configs).toEqual(expect.arrayContaining(['market-maker.yaml', 'grid-trader.yaml', 'sma-crossover.yaml']));
  });

  it.each(configs)('%s: no open number, plain decimals, JSON reads back as the result, HTML offline', async (file) => {
    const cfg = loadBacktestConfig(path.join(configDir, file));
    const r = await runBacktest({ ...cfg, backtest: { ...cfg.backtest, output: undefined } }, { writeOutput: false });
    expect(r.fills.length).toBeGreaterThan(0);
    expect(openNumbers(r)).toEqual([]);
    expect(badDecimals(r)).toEqual([]);
    expect(JSON.parse(JSON.stringify(r))).toEqual(r);
    const html = renderHtmlReport(r);
    // Nothing fetched: no script, style or image from elsewhere, the chart data inline.
    expect(html).not.toMatch(/<script[^>]+src=|<link[^>]+href=|<img[^>]+src=|@import/i);
    expect(html).toContain('<script type="application/json" id="chart-data">');
  });

  it('a strategy without quote budget (initial equity 0) still reports plain numbers', async () => {
    const cfg = loadBacktestConfig(path.join(configDir, 'sma-crossover.yaml'));
    const s = cfg.strategies[0]!;
    const r = await runBacktest({ ...cfg, strategies: [{ ...s, budget: { USDT: '0' } }], backtest: { ...cfg.backtest, output: undefined } }, { writeOutput: false });
    expect(openNumbers(r)).toEqual([]);
    expect(badDecimals(r)).toEqual([]);
    expect(JSON.parse(JSON.stringify(r))).toEqual(r);
  });

  it.each(['market-maker.yaml', 'sma-crossover.yaml'])('%s: the streamed result.json and report.html are what the whole-string writers give', async (file) => {
    const cfg = loadBacktestConfig(path.join(configDir, file));
    const r = await runBacktest({ ...cfg, backtest: { ...cfg.backtest, output: undefined } }, { writeOutput: false });
    const dir = mkdtempSync(path.join(tmpdir(), 'kancil-reports-'));
    try {
      // Written from the run's spools, before anything read the result's lists whole.
      const files = writeReports(dir, r);
      const json = readFileSync(files.json, 'utf8');
      const html = readFileSync(files.html, 'utf8');
      // The whole strings: the result's lists built in memory, the report from plain arrays.
      expect(json).toBe(`${JSON.stringify(r, null, 2)}\n`);
      const plain = JSON.parse(json) as BacktestResult;
      expect(html).toBe(renderHtmlReport(plain));
      expect(plain.fills.length).toBeGreaterThan(0);
      expect(plain.equity.length).toBeGreaterThan(100);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
