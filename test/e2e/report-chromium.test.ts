/**
 * Opens a rendered HTML backtest report in headless Chromium (playwright-core driving the Debian
 * `chromium` package) from disk, with network disabled, and checks that both charts have data.
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { chromium } from 'playwright-core';
import { Decimal } from '../../src/core/decimal.js';
import { ResultCollector } from '../../src/backtest/ResultCollector.js';
import { renderHtmlReport } from '../../src/backtest/htmlReport.js';

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
      const requests: string[] = [];
      page.on('request', (r) => {
        if (!r.url().startsWith('file:')) requests.push(r.url());
      });
      const errors: string[] = [];
      page.on('pageerror', (e) => errors.push(String(e)));
      await page.goto(pathToFileURL(file).href);
      await page.waitForFunction(() => (globalThis as unknown as { __kancilReport?: { ready?: boolean } }).__kancilReport?.ready === true, undefined, { timeout: 20_000 });
      const status = await page.evaluate(() => (globalThis as unknown as { __kancilReport: Record<string, number> }).__kancilReport);
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
    } finally {
      await browser.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
