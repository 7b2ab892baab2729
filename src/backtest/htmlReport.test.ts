import { describe, expect, it } from 'vitest';
import { Decimal } from '../core/decimal.js';
import { escapeHtml, renderHtmlReport, scriptJson } from './htmlReport.js';
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
});
