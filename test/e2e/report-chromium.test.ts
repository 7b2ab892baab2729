/**
 * Opens a rendered HTML backtest report in headless Chromium (playwright-core driving the Debian
 * `chromium` package) from disk, with network disabled, and checks that both charts have data.
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { chromium, type Page } from 'playwright-core';
import { Decimal } from '../../src/core/decimal.js';
import { ResultCollector } from '../../src/backtest/ResultCollector.js';
import { renderHtmlReport } from '../../src/backtest/htmlReport.js';
import { runBacktest } from '../../src/backtest/Backtest.js';
import { loadBacktestConfig } from '../../src/backtest/config.js';
import { renderSweepHtml } from '../../src/backtest/sweepReport.js';
import type { StrategyMetrics } from '../../src/backtest/result.js';

const root = path.resolve(import.meta.dirname, '../..');

const executablePath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const haveChromium = existsSync(executablePath);

function sampleResult() {
  const c = new ResultCollector([{ name: 'mm', symbols: ['BTC_USDT'], initialEquity: new Decimal(10_000) }], 1000);
  const t0 = 1_723_161_255_000;
  for (let i = 0; i <= 60; i++) {
    const px = new Decimal(61_800 + Math.round(20 * Math.sin(i / 5)));
    c.mark('BTC_USDT', px);
    if (i % 10 === 5) {
      const side = i % 20 === 5 ? 'BUY' : 'SELL';
      c.onEvent({ type: 'fill', E: t0 + i * 1000 + 300, strategy: 'mm', clientId: `c${i}`, orderId: String(i), symbol: 'BTC_USDT', side, tradeId: String(i), price: px, qty: new Decimal('0.01'), quoteQty: px.mul('0.01'), commission: new Decimal('0.1'), commissionAsset: 'USDT', isMaker: true });
    }
    c.sample(t0 + i * 1000);
  }
  return c.finish('chromium <check>');
}

/** Opens a report file and waits for its charts; the counts it exposes, the page errors and any non-file request. */
async function openReport(page: Page, file: string): Promise<{ status: Record<string, number>; errors: string[]; requests: string[] }> {
  const requests: string[] = [];
  page.on('request', (r) => {
    if (!r.url().startsWith('file:')) requests.push(r.url());
  });
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(pathToFileURL(file).href);
  await page.waitForFunction(() => (globalThis as unknown as { __kancilReport?: { ready?: boolean } }).__kancilReport?.ready === true, undefined, { timeout: 20_000 });
  const status = await page.evaluate(() => (globalThis as unknown as { __kancilReport: Record<string, number> }).__kancilReport);
  return { status, errors, requests };
}

describe.skipIf(!haveChromium)(`HTML report in headless Chromium (${haveChromium ? executablePath : `skipped: no chromium binary at ${executablePath}; install the Debian 'chromium' package or set CHROMIUM_PATH`})`, () => {
  it('renders offline, with an equity chart and a price chart with fill markers', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'kancil-report-'));
    const file = path.join(dir, 'report.html');
    writeFileSync(file, renderHtmlReport(sampleResult()));
    const browser = await chromium.launch({
      executablePath,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
    });
    try {
      const page = await browser.newPage();
      const { status, errors, requests } = await openReport(page, file);
      expect(errors).toEqual([]);
      expect(requests).toEqual([]);
      expect(status.equityPoints).toBe(2 * 61); // strategy + total, one point per second
      expect(status.priceCharts).toBe(1);
      expect(status.pricePoints).toBe(61);
      expect(status.markers).toBe(6);
      // the charts actually drew: lightweight-charts paints into canvases with a non-zero size
      const canvases = await page.$$eval('canvas', (cs) => cs.filter((c) => (c as unknown as { width: number; height: number }).width > 0 && (c as unknown as { height: number }).height > 0).length);
      expect(canvases).toBeGreaterThan(1);
      expect(await page.title()).toBe('kancil backtest: chromium <check>');
      expect(await page.textContent('#metrics')).toContain('Net PnL');
      expect(status.benchmarkPoints).toBe(61);
      expect(status.underwaterPoints).toBe(61);
      expect(await page.textContent('#trade-stats')).toMatch(/Round trips3.*Win rate/);
      expect(await page.locator('#round-trips tr').count()).toBe(4);
    } finally {
      await browser.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);

  it('a candle backtest: candles, plotted averages, the whole run in view, fill details on hover; a screenshot', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'kancil-report-'));
    const cfg = loadBacktestConfig(path.join(root, 'config/sma-crossover.yaml'));
    const r = await runBacktest({ ...cfg, backtest: { ...cfg.backtest, output: undefined } }, { writeOutput: false });
    const file = path.join(dir, 'report.html');
    writeFileSync(file, renderHtmlReport(r));
    const browser = await chromium.launch({ executablePath, args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--no-first-run'] });
    try {
      const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
      const { status, errors, requests } = await openReport(page, file);
      expect(errors).toEqual([]);
      expect(requests).toEqual([]);
      expect(status.candles).toBe(r.bars.BTC_USDT?.length);
      expect(status.candles).toBeGreaterThan(3000);
      expect(status.plots).toBe(2);
      expect(status.markers).toBe(r.fills.length);
      // The whole run is in view: the visible range spans the first to the last candle.
      const visible = await page.evaluate(() => (globalThis as unknown as { __kancilVisible: () => { from: number; to: number } }).__kancilVisible());
      expect(visible.from).toBeLessThanOrEqual(status.firstTime as number);
      expect(visible.to).toBeGreaterThanOrEqual(status.lastTime as number);
      // Hovering along the price chart finds a fill marker and shows its details.
      await page.locator('#prices .chart').first().scrollIntoViewIfNeeded();
      const box = await page.locator('#prices .chart').first().boundingBox();
      if (box === null) throw new Error('no price chart');
      let tip = '';
      for (let x = 5; x < box.width - 80 && tip === ''; x += 2) {
        await page.mouse.move(box.x + x, box.y + box.height / 2);
        tip = (await page.locator('#tip').isVisible()) ? ((await page.textContent('#tip')) ?? '') : '';
      }
      expect(tip).toMatch(/^2024-08-0\dT\S+ sma (BUY|SELL) 0\.\d+ @ \d+(\.\d+)?, fee /);
      const shot = process.env.KANCIL_REPORT_SCREENSHOT ?? path.join(dir, 'report.png');
      await page.screenshot({ path: shot, fullPage: false });
      expect(existsSync(shot)).toBe(true);
    } finally {
      await browser.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);

  it('draws a series plotted in a pane below the candles, with its own axis, the candles keeping theirs', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'kancil-report-'));
    const c = new ResultCollector([{ name: 's', symbols: ['BTC_USDT'], initialEquity: new Decimal(10_000) }], 60_000);
    const t0 = 1_723_161_240_000;
    const bars = [];
    const avg = [];
    const rsi = [];
    for (let i = 0; i < 60; i++) {
      const px = 61_800 + Math.round(40 * Math.sin(i / 5));
      c.mark('BTC_USDT', new Decimal(px));
      c.sample(t0 + i * 60_000);
      bars.push({ t: t0 + i * 60_000, o: px - 5, h: px + 10, l: px - 10, c: px });
      avg.push({ t: t0 + i * 60_000, v: px + 3 });
      rsi.push({ t: t0 + i * 60_000, v: 50 + 30 * Math.sin(i / 4) });
    }
    const plots = [
      { strategy: 's', name: 'SMA(5)', symbol: 'BTC_USDT', points: avg },
      { strategy: 's', name: 'RSI(14)', symbol: 'BTC_USDT', pane: 'RSI', points: rsi },
    ];
    const file = path.join(dir, 'report.html');
    writeFileSync(file, renderHtmlReport(c.finish('panes', [], { bars: { BTC_USDT: bars }, plots })));
    const browser = await chromium.launch({ executablePath, args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run'] });
    try {
      const page = await browser.newPage({ viewport: { width: 1200, height: 1000 } });
      const { status, errors } = await openReport(page, file);
      expect(errors).toEqual([]);
      expect(status.candles).toBe(60);
      expect(status.plots).toBe(2);
      expect(status.panes).toBe(1);
      expect(status.panePlots).toBe(1);
      const panes = await page.evaluate(() => (globalThis as unknown as { __kancilPanes: () => { height: number; series: number }[] }).__kancilPanes());
      // The price pane keeps the candles and the overlay at its full height; the RSI has its own pane.
      expect(panes.map((p) => p.series)).toEqual([2, 1]);
      // The price pane's height is the chart's without panes (320 px less the time axis).
      expect(panes[0]?.height).toBeGreaterThanOrEqual(280);
      expect(panes[1]?.height).toBeGreaterThanOrEqual(140);
      const shot = process.env.KANCIL_PANE_SCREENSHOT;
      if (shot !== undefined) await page.locator('#prices .chart').first().screenshot({ path: shot });
    } finally {
      await browser.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);

  it('the sweep page sorts by a clicked column and maps a metric over two parameters', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'kancil-sweep-page-'));
    const m = (net: number) => ({ netPnl: String(net), returnPct: net / 100, maxDrawdownPct: 1, sharpe: net / 10, sortino: null, sharpePerPeriod: null, fees: '1', trades: 3, fillRatio: 1 }) as unknown as StrategyMetrics;
    const rows = [
      [5, 30, 12],
      [5, 60, -4],
      [10, 30, 7],
      [10, 60, 20],
    ].map(([fast, slow, net], i) => ({ rank: i + 1, params: { fast, slow }, metrics: m(net as number) }));
    const file = path.join(dir, 'sweep.html');
    writeFileSync(file, renderSweepHtml({ strategy: 's', rankBy: 'netPnl', rows, skipped: [{ params: { fast: 60, slow: 30 }, reason: 'fast must be smaller than slow' }] }));
    const browser = await chromium.launch({ executablePath, args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run'] });
    try {
      const page = await browser.newPage();
      const errors: string[] = [];
      page.on('pageerror', (e) => errors.push(String(e)));
      await page.goto(pathToFileURL(file).href);
      await page.waitForFunction(() => (globalThis as unknown as { __kancilSweep?: unknown }).__kancilSweep !== undefined);
      expect(errors).toEqual([]);
      const firstNet = async (): Promise<string> => (await page.locator('#points tr:nth-child(2) td:nth-child(4)').textContent()) ?? '';
      expect(await firstNet()).toBe('12');
      await page.click('#points th:has-text("netPnl")');
      expect(await firstNet()).toBe('20');
      await page.click('#points th:has-text("netPnl")');
      expect(await firstNet()).toBe('-4');
      // slow down, fast across: the cells hold each point's netPnl
      expect(await page.locator('#heatmap').innerText()).toMatch(/slow \\ fast\s+5\s+10\s+30\s+12\s+7\s+60\s+-4\s+20/);
      await page.selectOption('#hm', 'sharpe');
      expect(await page.locator('#heatmap').innerText()).toMatch(/30\s+1\.2\s+0\.7/);
      expect(await page.textContent('body')).toContain('Skipped (1, refused by the strategy)');
    } finally {
      await browser.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);

  it('the sweep page shows parameter names and values as text: markup in them is not run', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'kancil-sweep-xss-'));
    const bad = '</script><img src=x onerror="globalThis.__pwned=1">';
    const m = { netPnl: '1', returnPct: 0.01, maxDrawdownPct: 1, sharpe: null, sortino: null, sharpePerPeriod: null, fees: '1', trades: 3, fillRatio: 1 } as unknown as StrategyMetrics;
    const rows = [{ rank: 1, params: { [bad]: 1, q: bad }, metrics: m }, { rank: 2, params: { [bad]: 2, q: '0.01' }, metrics: m }];
    const file = path.join(dir, 'sweep.html');
    writeFileSync(file, renderSweepHtml({ strategy: 's', rankBy: 'netPnl', rows, skipped: [] }));
    const browser = await chromium.launch({ executablePath, args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run'] });
    try {
      const page = await browser.newPage();
      await page.goto(pathToFileURL(file).href);
      await page.waitForFunction(() => (globalThis as unknown as { __kancilSweep?: unknown }).__kancilSweep !== undefined);
      expect(await page.locator('img').count()).toBe(0);
      expect(await page.evaluate(() => (globalThis as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
      expect(await page.locator('#heatmap').innerText()).toContain(bad);
      expect(await page.locator('#points').innerText()).toContain(bad);
    } finally {
      await browser.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
