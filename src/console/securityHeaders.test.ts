import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { dashboardPage } from './dashboard.js';
import { pageCsp, SECURITY_HEADERS } from './securityHeaders.js';

const hash = (t: string): string => `'sha256-${createHash('sha256').update(t).digest('base64')}'`;

describe('security headers', () => {
  it('every answer forbids framing, sniffing, referrers and caching', () => {
    expect(SECURITY_HEADERS).toMatchObject({ 'x-frame-options': 'DENY', 'x-content-type-options': 'nosniff', 'referrer-policy': 'no-referrer', 'cache-control': 'no-store' });
    expect(SECURITY_HEADERS['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(SECURITY_HEADERS['content-security-policy']).toContain("default-src 'none'");
  });

  it("the page's policy lists the hash of each inline block and nothing inline else", () => {
    const csp = pageCsp('<style>a{}</style><script>x()</script><script type="module">y()</script><p style="color:red">');
    expect(csp).toContain(`script-src ${hash('x()')} ${hash('y()')};`);
    expect(csp).toContain(`style-src ${hash('a{}')};`);
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain('unsafe');
    expect(pageCsp('<p>no script</p>')).toContain("script-src 'none'; style-src 'none'");
  });

  it("the dashboard's policy covers its scripts, its sheet and the chart library's logo sheet", () => {
    const page = dashboardPage();
    const csp = pageCsp(page);
    expect(csp).not.toContain('unsafe-inline');
    const scripts = /script-src ([^;]*)/.exec(csp)?.[1]?.split(' ') ?? [];
    const styles = /style-src ([^;]*)/.exec(csp)?.[1]?.split(' ') ?? [];
    expect(scripts).toHaveLength(page.split('<script>').length - 1);
    // The page's own sheet and the one lightweight-charts adds for its attribution logo.
    expect(styles).toHaveLength(2);
  });
});
