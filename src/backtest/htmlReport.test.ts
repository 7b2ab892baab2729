import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Decimal } from '../core/decimal.js';
import { escapeHtml, renderHtmlReport, scriptJson, writeHtmlReport } from './htmlReport.js';
import { ResultCollector } from './ResultCollector.js';

describe('HTML report', () => {
  it('escapes text and keeps inlined JSON inert inside <script>', () => {
    expect(escapeHtml(`<a href="x">&'`)).toBe('&lt;a href=&quot;x&quot;&gt;&amp;&#39;');
    const j = scriptJson({ s: '</script><!--' });
    expect(j).not.toContain('</script');
    expect(JSON.parse(j)).toEqual({ s: '</script><!--' });
  });

  it('is self-contained: the chart library and the data are inline, nothing is fetched', () => {
    const c = new ResultCollector([{ name: 'x</script>', symbols: ['BTC_USDT'], initialEquity: new Decimal(1) }], 1000);
    c.mark('BTC_USDT', new Decimal(1));
    c.sample(0);
    const html = renderHtmlReport(c.finish('n'));
    expect(html).toContain('LightweightCharts');
    expect(html).not.toMatch(/<script[^>]+src=/);
    expect(html).not.toMatch(/<link[^>]+href=/);
    expect(html).not.toContain('x</script>');
    expect(html).toContain('x&lt;/script&gt;');
  });

  it('writes the bytes of the rendered document, the chart library as its file holds it', () => {
    const c = new ResultCollector([{ name: 'n\u00e9', symbols: ['BTC_USDT'], initialEquity: new Decimal(1) }], 1000);
    c.mark('BTC_USDT', new Decimal(1));
    c.sample(0);
    const r = c.finish('n');
    const dir = mkdtempSync(path.join(tmpdir(), 'kancil-report-'));
    try {
      const file = path.join(dir, 'report.html');
      writeHtmlReport(file, r);
      const written = readFileSync(file);
      expect(written.equals(Buffer.from(renderHtmlReport(r), 'utf8'))).toBe(true);
      const lib = readFileSync(path.join(path.dirname(createRequire(import.meta.url).resolve('lightweight-charts/package.json')), 'dist', 'lightweight-charts.standalone.production.js'));
      expect(written.includes(lib)).toBe(true);
      expect(written.toString('utf8')).toContain('n\u00e9');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('inlines each plotted series with its pane (none for an overlay) beside the candles it goes with', () => {
    const c = new ResultCollector([{ name: 's', symbols: ['BTC_USDT'], initialEquity: new Decimal(100) }], 60_000);
    c.mark('BTC_USDT', new Decimal(100));
    c.sample(0);
    const bars = { BTC_USDT: [{ t: 0, o: 100, h: 101, l: 99, c: 100 }] };
    const plots = [
      { strategy: 's', name: 'avg', symbol: 'BTC_USDT', points: [{ t: 0, v: 100 }] },
      { strategy: 's', name: 'rsi', symbol: 'BTC_USDT', pane: 'RSI', points: [{ t: 0, v: 55 }] },
    ];
    const html = renderHtmlReport(c.finish('n', [], { bars, plots }));
    const data = JSON.parse(/<script type="application\/json" id="chart-data">([^<]*)<\/script>/.exec(html)?.[1] ?? 'null') as { symbols: { symbol: string; plots: { name: string; pane?: string }[] }[] };
    expect(data.symbols.map((s) => [s.symbol, s.plots.map((p) => [p.name, p.pane ?? 'price'])])).toEqual([['BTC_USDT', [['avg', 'price'], ['rsi', 'RSI']]]]);
    expect(html).toContain('chart.addSeries(LC.LineSeries');
    expect(html).toMatch(/panes\.indexOf\(p\.pane\)/);
  });

  it('prints an unavailable ratio as n/a with its reason, and says what the ratios are', () => {
    const c = new ResultCollector([{ name: 's', symbols: ['BTC_USDT'], initialEquity: new Decimal(100) }], 1000);
    c.mark('BTC_USDT', new Decimal(1));
    for (let t = 0; t <= 600_000; t += 1000) c.sample(t);
    const r = c.finish('n');
    const html = renderHtmlReport(r);
    // A flat 10-minute curve: no variance per period, and too short to annualise.
    // One strategy: its column and the TOTAL column are the same.
    const cells = (label: string, text: string): string => `<tr><td>${label}</td>${`<td>${text}</td>`.repeat(2)}</tr>`;
    expect(html).toContain(cells('Sharpe (per period)', 'n/a (returns have no variance)'));
    expect(html).toContain(cells('Sortino (annualised)', 'n/a (no period lost money)'));
    expect(html).toContain(cells('Ratio sample', '600 returns of 1000 ms, spanning 10m 0s'));
    expect(html).toMatch(/id="ratio-note">.*1000 ms.*at least a day.*fewer than 30 returns/);
    expect(html).not.toMatch(/<td>null<\/td>/);
  });

  it('lists the orders still open at the end, and has no such section when there are none', () => {
    const c = new ResultCollector([{ name: 's', symbols: ['BTC_USDT'], initialEquity: new Decimal(100) }], 1000);
    c.sample(0);
    expect(renderHtmlReport(c.finish('n'))).not.toContain('Orders open at the end</h2>');
    const d = (x: string) => new Decimal(x);
    c.onEvent({ type: 'orderUpdate', E: 0, strategy: 's', clientId: 'c<1>', orderId: '1', symbol: 'BTC_USDT', side: 'SELL', orderType: 'LIMIT', state: 'NEW', price: d('101.5'), quantity: d('2'), cumQty: d('0'), cumQuoteQty: d('0') });
    const html = renderHtmlReport(c.finish('n'));
    expect(html).toContain('<tr><td>Orders open at the end</td><td>1</td><td>1</td></tr>');
    expect(html).toContain('<tr><td>s</td><td>c&lt;1&gt;</td><td>BTC_USDT</td><td>SELL</td><td>LIMIT</td><td>NEW</td><td>101.5</td><td>2</td><td>0</td><td>1970-01-01T00:00:00.000Z</td></tr>');
  });

  it('shows the position at the end per symbol, or flat', () => {
    const c = new ResultCollector([{ name: 's', symbols: ['BTC_USDT'], initialEquity: new Decimal(100) }], 1000);
    c.mark('BTC_USDT', new Decimal(100));
    c.sample(0);
    expect(renderHtmlReport(c.finish('n'))).toContain('<tr><td>Position at the end (base, net of base-asset fees)</td><td>flat</td><td>flat</td></tr>');
    const d = (x: string) => new Decimal(x);
    c.onEvent({ type: 'fill', E: 1, strategy: 's', clientId: 'c', orderId: '1', symbol: 'BTC_USDT', side: 'BUY', tradeId: '1', price: d('100'), qty: d('0.002'), quoteQty: d('0.2'), commission: d('0.000002'), commissionAsset: 'BTC', isMaker: true });
    expect(renderHtmlReport(c.finish('n'))).toContain('<td>BTC_USDT 0.001998</td>');
  });

  it('lists the worst drawdown periods and the shape of the returns, with units', () => {
    const c = new ResultCollector([{ name: 's', symbols: ['BTC_USDT'], initialEquity: new Decimal(100) }], 1000);
    const d = (x: string) => new Decimal(x);
    c.mark('BTC_USDT', d('100'));
    c.sample(0);
    expect(renderHtmlReport(c.finish('n'))).toContain('<p>Equity never fell below a previous peak.</p>');
    c.onEvent({ type: 'fill', E: 1, strategy: 's', clientId: 'c', orderId: '1', symbol: 'BTC_USDT', side: 'BUY', tradeId: '1', price: d('100'), qty: d('0.5'), quoteQty: d('50'), commission: d('0'), commissionAsset: 'USDT', isMaker: true });
    // equity 100, then 90 (0.5 BTC marked at 80), then 100 again
    c.mark('BTC_USDT', d('80'));
    c.sample(1000);
    c.mark('BTC_USDT', d('100'));
    c.sample(2000);
    const r = c.finish('n');
    expect(r.tearsheet.s?.drawdowns).toEqual([{ start: 0, trough: 1000, recovery: 2000, depth: 10, depthPct: 10, durationMs: 2000 }]);
    const html = renderHtmlReport(r);
    expect(html).toContain('<tr><td>s</td><td>1</td><td>1970-01-01T00:00:00.000Z</td><td>1970-01-01T00:00:01.000Z</td><td>1970-01-01T00:00:02.000Z</td><td>10</td><td>10.00%</td><td>2s</td></tr>');
    expect(html).toContain('<tr><td>Longest drawdown</td><td>2s</td></tr>');
    expect(html).toContain('<tr><td>Max drawdown %</td><td>10.00%</td><td>10.00%</td></tr>');
    expect(html).toContain('<tr><td>Exposure (time in a position)</td><td>99.95%</td></tr>');
    expect(html).toContain(`<tr><td>s</td><td>1970</td><td>0.00%</td>${'<td></td>'.repeat(11)}<td>0.00%</td></tr>`);
    expect(html).not.toContain('id="holding-times"');
    expect(html).toContain('<tr><td>VaR 95% (historical, per period)</td><td>n/a (2 returns, fewer than 30)</td></tr>');
  });
});
