/**
 * The console's dashboard in headless Chromium (playwright-core driving the Debian `chromium`
 * package, as the report test does) while `kancil run` trades the npm start configuration on
 * paper against the in-process sandbox over 127.0.0.1: the page loads with nothing fetched from
 * elsewhere, shows the run's open orders, fills, books and PnL chart, and a click on HALT stops
 * new orders (the strategy's placements are refused TRADING_HALTED, shown on the page).
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { request } from 'undici';
import { describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { runCommand } from '../../src/cli/run.js';
import { LedgerReader } from '../../src/store/LedgerReader.js';
import { logSink, waitFor } from '../integration/pipeline-harness.js';

const executablePath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const haveChromium = existsSync(executablePath);
const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const TOKEN = 'dashboard-test-token-0123456789abcdef';

interface PageStatus {
  ready: boolean;
  orders: number;
  fills: number;
  equityPoints: number;
  connected: boolean;
  lastCommand: { cmd: string; status: number } | null;
}

describe.skipIf(!haveChromium)(`console dashboard in headless Chromium (${haveChromium ? executablePath : `skipped: no chromium binary at ${executablePath}; install the Debian 'chromium' package or set CHROMIUM_PATH`})`, () => {
  it('shows the run trading live, and HALT stops new orders', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'kancil-dashboard-'));
    const doc = parse(readFileSync(path.join(repoRoot, 'config/default.yaml'), 'utf8')) as Record<string, unknown>;
    const file = path.join(dir, 'run.yaml');
    const db = path.join(dir, 'run.db');
    writeFileSync(file, stringify({ ...doc, sandbox: { config: path.join(repoRoot, 'config/paper-sandbox.yaml') }, storage: { path: db }, logging: { level: 'info' }, console: { port: 0 } }));
    let out = '';
    const logs: string[] = [];
    const done = runCommand([file, '--duration', '120'], { stdout: (t) => (out += t), stderr: (t) => (out += t), env: { KANCIL_CONSOLE_TOKEN: TOKEN } }, logSink(logs));
    const browser = await chromium.launch({ executablePath, args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'] });
    try {
      expect(await waitFor(() => /console: (http:\/\/127\.0\.0\.1:\d+)\//.test(out), 20_000), out).toBe(true);
      const base = /console: (http:\/\/127\.0\.0\.1:\d+)\//.exec(out)?.[1] ?? '';
      const page = await browser.newPage();
      const elsewhere: string[] = [];
      page.on('request', (r) => {
        if (!r.url().startsWith(base)) elsewhere.push(r.url());
      });
      const errors: string[] = [];
      page.on('pageerror', (e) => errors.push(String(e)));
      // The page runs under a CSP of hashes (no 'unsafe-inline'): anything it refused is reported here.
      const refused: string[] = [];
      page.on('console', (m) => {
        if (m.type() === 'error' && /Content Security Policy/i.test(m.text())) refused.push(m.text());
      });
      await page.goto(`${base}/#token=${TOKEN}`);
      const status = (): Promise<PageStatus> => page.evaluate(() => (globalThis as unknown as { __kancilConsole: PageStatus }).__kancilConsole);
      await page.waitForFunction(() => {
        const s = (globalThis as unknown as { __kancilConsole?: PageStatus }).__kancilConsole;
        return s?.ready === true && s.connected && s.orders > 0 && s.fills > 0 && s.equityPoints > 1;
      }, undefined, { timeout: 30_000 });
      expect(await page.title()).toBe('kancil console');
      expect(await page.textContent('#run')).toBe('demo (paper)');
      expect(await page.textContent('#state')).toBe('ACTIVE');
      expect(await page.locator('#orders tbody tr').count()).toBeGreaterThan(0);
      expect(await page.locator('#orders tbody tr').first().textContent()).toMatch(/mm-.*mm.*BTC_USDT/);
      expect(await page.locator('#fills tbody tr').count()).toBeGreaterThan(0);
      expect(await page.textContent('#books tbody')).toContain('BTC_USDT');
      expect(await page.textContent('#strategies tbody')).toContain('mm');
      const canvases = await page.$$eval('#equity canvas', (cs) => cs.filter((c) => (c as unknown as { width: number }).width > 0).length);
      expect(canvases).toBeGreaterThan(0);

      // HALT from the header: the run's state goes HALTED and no order is placed after it.
      await page.click('header button[data-cmd="halt"]');
      await page.waitForFunction(() => (globalThis as unknown as { __kancilConsole: PageStatus }).__kancilConsole.lastCommand?.status === 200, undefined, { timeout: 10_000 });
      await page.locator('#state', { hasText: 'HALTED' }).waitFor({ timeout: 10_000 });
      const reader = LedgerReader.open(db);
      try {
        const placed = reader.orders().length;
        await page.locator('#rejections tbody td', { hasText: 'TRADING_HALTED' }).first().waitFor({ timeout: 10_000 });
        await new Promise((r) => setTimeout(r, 1500));
        expect(reader.orders().length).toBe(placed);
        expect(reader.journal(['console']).map((j) => (j.data as { command: string; reason: string }).reason)).toEqual(['dashboard halt']);
      } finally {
        reader.close();
      }
      expect((await status()).fills).toBeGreaterThan(0);
      expect(errors).toEqual([]);
      expect(refused).toEqual([]);
      expect(elsewhere).toEqual([]);
      // The token was taken from the address and kept in the tab, not in the page.
      expect(page.url()).not.toContain(TOKEN);
      expect(await page.content()).not.toContain(TOKEN);
      const stop = await request(`${base}/api/stop`, { method: 'POST', headers: { authorization: `Bearer ${TOKEN}` } });
      await stop.body.text();
      expect(await done).toBe(0);
      expect(logs.join('')).not.toContain(TOKEN);
    } finally {
      await browser.close();
      await Promise.race([done.catch(() => 1), new Promise((r) => setTimeout(r, 100))]);
      rmSync(dir, { recursive: true, force: true });
    }
  }, 90_000);
});
