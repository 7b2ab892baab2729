/**
 * The console's dashboard in headless Chromium (playwright-core driving the Debian `chromium`
 * package, as the report test does) while `kancil run` trades the npm start configuration on
 * paper against the in-process sandbox over 127.0.0.1: the page loads with nothing fetched from
 * elsewhere, shows the run's open orders, fills (with their total), books, a price chart with our
 * orders and fills, PnL and daily profit charts and formatted log lines; at 1280 x 800, 1440 x 900
 * and 1920 x 1080 every button and cell lies inside the viewport and its card; a click on HALT stops
 * new orders (the strategy's placements are refused TRADING_HALTED, shown on the page).
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Page } from 'playwright-core';
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
  fillsTotal: number;
  equityPoints: number;
  pricePoints: number;
  markers: number;
  orderLines: number;
  dailyBars: number;
  logLines: number;
  connected: boolean;
  lastCommand: { cmd: string; status: number } | null;
}

/**
 * Run in the page (as text: this project compiles without the DOM types): what lies outside the
 * viewport or its card, and which cards scroll sideways.
 */
const OUTSIDE = `(() => {
  const out = [];
  const vw = document.documentElement.clientWidth;
  for (const el of document.querySelectorAll('button, td, th, input')) {
    const r = el.getBoundingClientRect();
    const card = el.closest('section, header')?.getBoundingClientRect();
    const name = el.tagName + ' ' + (el.textContent ?? '').trim().slice(0, 20);
    if (r.left < 0 || r.right > vw) out.push(name + ': outside the viewport (' + Math.round(r.left) + '..' + Math.round(r.right) + ' of ' + vw + ')');
    if (card && (r.left < card.left - 0.5 || r.right > card.right + 0.5)) out.push(name + ': outside its card (' + Math.round(r.right) + ' > ' + Math.round(card.right) + ')');
  }
  for (const s of document.querySelectorAll('section')) if (s.scrollWidth > s.clientWidth + 1) out.push('section ' + (s.querySelector('h2')?.textContent ?? '') + ' scrolls sideways');
  return out;
})()`;

/** Every button and cell inside the viewport and inside its card, on a laptop and on wide screens. */
async function fitsEveryScreen(page: Page): Promise<void> {
  for (const [width, height] of [[1280, 800], [1440, 900], [1920, 1080]] as const) {
    await page.setViewportSize({ width, height });
    await page.evaluate('new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))');
    expect(await page.evaluate<string[]>(OUTSIDE), `${width} x ${height}`).toEqual([]);
  }
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
      for (const id of ['equity', 'price', 'daily']) {
        const canvases = await page.$$eval(`#${id} canvas`, (cs) => cs.filter((c) => (c as unknown as { width: number }).width > 0).length);
        expect(canvases, id).toBeGreaterThan(0);
      }
      await page.waitForFunction(() => {
        const s = (globalThis as unknown as { __kancilConsole: PageStatus }).__kancilConsole;
        return s.pricePoints > 1 && s.markers > 0 && s.orderLines > 0 && s.dailyBars > 0 && s.logLines > 0;
      }, undefined, { timeout: 30_000 }).catch(async (e: unknown) => {
        throw new Error(`${String(e)}; page status ${JSON.stringify(await status())}`);
      });
      // Live balances with the account's equity in one quote asset; realized and unrealized PnL apart.
      await page.locator('#equity-total', { hasText: /^\(equity \d+(\.\d+)? USDT\)$/ }).waitFor({ timeout: 15_000 });
      expect(await page.locator('#positions thead th').allTextContents()).toEqual(['strategy', 'symbol', 'position', 'fills', 'volume', 'mark', 'realized', 'unrealized', 'PnL']);
      const pos = await page.locator('#positions tbody tr').first().locator('td').allTextContents();
      expect(pos[6]).toMatch(/^-?\d+(\.\d+)?$/);
      expect(pos[7]).toMatch(/^-?\d+(\.\d+)?$/);
      // The total is the ledger's, beside the rows shown.
      const st = await status();
      expect(await page.textContent('#fills-count')).toMatch(/^\(1-\d+ of \d+, newest first\)$/);
      expect(st.fillsTotal).toBeGreaterThanOrEqual(st.fills);
      // Log lines are time, level, message and key=value fields, never a raw JSON object.
      const logText = (await page.locator('#log div').allTextContents()).join('\n');
      expect(logText).toMatch(/^\d\d:\d\d:\d\d\.\d{3} (INFO|WARN|EVENT) /m);
      expect(logText).toMatch(/ running mode=paper run=1 /);
      expect(logText).not.toMatch(/"level":|"msg":|^\{/m);
      await fitsEveryScreen(page);

      // HALT from the header: the run's state goes HALTED and no order is placed after it.
      await page.click('header button[data-cmd="halt"]');
      await page.waitForFunction(() => (globalThis as unknown as { __kancilConsole: PageStatus }).__kancilConsole.lastCommand?.status === 200, undefined, { timeout: 10_000 });
      await page.locator('#state', { hasText: 'HALTED' }).waitFor({ timeout: 10_000 });
      const reader = LedgerReader.open(db);
      try {
        const placed = reader.orders().length;
        await page.locator('#rejections tbody td', { hasText: 'TRADING_HALTED' }).first().waitFor({ timeout: 10_000 });
        await fitsEveryScreen(page);
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
