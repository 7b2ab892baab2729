/**
 * The dashboard page the console serves at `/`: one self-contained HTML document (the
 * lightweight-charts standalone bundle inlined, as the backtest report does), so it works with no
 * internet and no build step. It loads /api/snapshot, then follows /api/events (server-sent events
 * read through fetch, so the bearer token can go in a header) and sends commands as POSTs.
 *
 * The page holds no secret: the operator types the token (or opens the page with #token=... in
 * the address, which never reaches the server) and it stays in this tab's sessionStorage. Every
 * value is put in the page as text, never as markup. Scripts and styles stay in plain inline
 * blocks with no attributes that change their text: the server's Content-Security-Policy lists
 * each block's SHA-256 (securityHeaders.ts), and an inline `style=` or `on...=` would be refused.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { DASHBOARD_CSS, DASHBOARD_SCRIPT } from './dashboardScript.js';

let charts: string | undefined;

/** lightweight-charts' standalone build (its package exports only ESM entries, so the folder is found from package.json). */
function lightweightCharts(): string {
  if (charts !== undefined) return charts;
  const dir = path.dirname(createRequire(import.meta.url).resolve('lightweight-charts/package.json'));
  charts = readFileSync(path.join(dir, 'dist', 'lightweight-charts.standalone.production.js'), 'utf8');
  return charts;
}

/** The page's HTML. */
export function dashboardPage(): string {
  const buttons = (scope: string): string => ['halt', 'reduce', 'resume', 'cancel-all'].map((c) => `<button data-cmd="${c}" data-scope="${scope}">${c.toUpperCase()}</button>`).join('');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>kancil console</title><style>${DASHBOARD_CSS}</style></head>
<body>
<header>
  <h1>kancil <span id="run"></span></h1>
  <span id="state" class="badge"></span> <span id="uptime"></span> <span id="pnl"></span> <span id="conn" class="badge"></span>
  <div class="controls">${buttons('')}<button data-cmd="stop" data-scope="" class="danger">STOP</button>
  <input id="token" type="password" placeholder="console token" autocomplete="off"><button id="save-token">use token</button>
  <span id="cmd-result"></span></div>
</header>
<main>
  <section class="wide"><h2>Strategies</h2><table id="strategies"><thead><tr><th>name</th><th>symbols</th><th>state</th><th>reason</th><th>failure</th><th>commands</th></tr></thead><tbody></tbody></table>
  <template id="strategy-buttons">${buttons('?')}</template></section>
  <section class="chart"><h2>Price, our orders and fills <span id="price-symbol"></span></h2><div id="price" class="plot"></div></section>
  <section class="chart"><h2>PnL</h2><div id="equity" class="plot"></div></section>
  <section class="wide"><h2>Positions</h2><table id="positions"><thead><tr><th>strategy</th><th>symbol</th><th class="num">position</th><th class="num">fills</th><th class="num">volume</th><th class="num">mark</th><th class="num">realized</th><th class="num">unrealized</th><th class="num">PnL</th></tr></thead><tbody></tbody></table></section>
  <section class="chart"><h2>Daily profit (UTC days)</h2><div id="daily" class="plot"></div></section>
  <section class="span2"><h2>Books</h2><table id="books"><thead><tr><th>symbol</th><th class="num">bid qty</th><th class="num">bid</th><th class="num">ask</th><th class="num">ask qty</th><th>ready</th></tr></thead><tbody></tbody></table>
  <h2>Balances <span id="equity-total"></span></h2><table id="balances"><thead><tr><th>asset</th><th class="num">free</th><th class="num">locked</th></tr></thead><tbody></tbody></table></section>
  <section class="wide"><h2>Open orders <span id="orders-count"></span></h2><table id="orders"><thead><tr><th>clientId</th><th>strategy</th><th>symbol</th><th>side</th><th>type</th><th class="num">price</th><th class="num">qty</th><th class="num">executed</th><th>state</th></tr></thead><tbody></tbody></table></section>
  <section class="wide"><h2>Fills <span id="fills-count"></span> <button data-page="newer" disabled>newer</button><button data-page="older">older</button></h2><table id="fills"><thead><tr><th>time</th><th>strategy</th><th>symbol</th><th>side</th><th class="num">price</th><th class="num">qty</th><th class="num">fee</th><th>role</th></tr></thead><tbody></tbody></table></section>
  <section><h2>Rejections <span id="rejections-count"></span></h2><div id="reasons"></div><table id="rejections"><thead><tr><th>time</th><th>strategy</th><th>symbol</th><th>reason</th><th>message</th></tr></thead><tbody></tbody></table></section>
  <section class="span2"><h2>Events and log</h2><div id="log"></div></section>
</main>
<script>${lightweightCharts()}</script>
<script>${DASHBOARD_SCRIPT}</script>
</body></html>
`;
}
