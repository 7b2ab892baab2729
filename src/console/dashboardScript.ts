/**
 * The dashboard's stylesheet and browser script (plain ES2017, run as is: no build step). The
 * script keeps the page's state from /api/snapshot and the /api/events stream, draws PnL per
 * quote asset with lightweight-charts, and posts commands with the operator's token. It writes
 * every value with textContent. `window.__kancilConsole` reports what is shown (the browser test reads it).
 */

/** The page's CSS. */
export const DASHBOARD_CSS = String.raw`
body { font: 13px/1.35 system-ui, sans-serif; margin: 0; background: #f5f6f8; color: #1d2330; }
header { position: sticky; top: 0; background: #1d2330; color: #fff; padding: 8px 14px; z-index: 2; }
header h1 { display: inline; font-size: 16px; margin-right: 12px; }
.controls { margin-top: 6px; }
button { font: inherit; margin: 0 4px 0 0; padding: 2px 8px; cursor: pointer; border: 1px solid #8892a6; border-radius: 3px; background: #fff; }
button.danger { background: #b3261e; color: #fff; border-color: #b3261e; }
input { font: inherit; padding: 2px 6px; margin-left: 12px; }
.badge { padding: 1px 8px; border-radius: 9px; background: #546e7a; color: #fff; font-weight: 600; }
.ACTIVE { background: #2e7d32; } .REDUCING { background: #ef6c00; } .HALTED { background: #b3261e; }
main { display: grid; grid-template-columns: repeat(auto-fit, minmax(420px, 1fr)); gap: 10px; padding: 10px; }
section { background: #fff; border-radius: 5px; padding: 6px 10px; overflow: auto; max-height: 420px; }
section.wide { grid-column: 1 / -1; }
h2 { font-size: 14px; margin: 4px 0 6px; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; padding: 2px 6px; border-bottom: 1px solid #e3e6ea; white-space: nowrap; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
.BUY { color: #2e7d32; } .SELL { color: #b3261e; }
#equity { height: 260px; }
pre { margin: 0; font-size: 12px; white-space: pre-wrap; }
#cmd-result { margin-left: 8px; }
`;

/** The page's script. */
export const DASHBOARD_SCRIPT = String.raw`
(function () {
  'use strict';
  var S = { orders: new Map(), fills: [], rejections: [], lines: [], series: new Map(), lastSec: new Map(), equityPoints: 0, events: 0, commandsEnabled: false };
  var status = window.__kancilConsole = { ready: false, orders: 0, fills: 0, events: 0, equityPoints: 0, connected: false, lastCommand: null };
  var TERMINAL = { FILLED: 1, CANCELED: 1, REJECTED: 1, EXPIRED: 1 };
  var $ = function (id) { return document.getElementById(id); };

  var hash = /[#&]token=([^&]+)/.exec(location.hash);
  if (hash) { sessionStorage.setItem('kancilToken', decodeURIComponent(hash[1])); history.replaceState(null, '', location.pathname); }
  function token() { return sessionStorage.getItem('kancilToken') || ''; }
  function headers() { var t = token(); return t ? { authorization: 'Bearer ' + t } : {}; }
  $('save-token').onclick = function () { sessionStorage.setItem('kancilToken', $('token').value.trim()); $('token').value = ''; say('token set for this tab'); };

  function say(text) { $('cmd-result').textContent = text; }
  function cell(tr, text, cls) { var td = document.createElement('td'); td.textContent = text === undefined || text === null ? '-' : String(text); if (cls) td.className = cls; tr.appendChild(td); return td; }
  function fill(id, rows, make) { var body = $(id).tBodies[0]; var out = document.createDocumentFragment(); rows.forEach(function (r) { var tr = document.createElement('tr'); make(tr, r); out.appendChild(tr); }); body.replaceChildren(out); }
  function time(t) { return new Date(t).toISOString().slice(11, 23); }

  var chart = LightweightCharts.createChart($('equity'), { height: 260, timeScale: { timeVisible: true, secondsVisible: true } });
  var colors = ['#1565c0', '#6a1b9a', '#00838f', '#ef6c00'];
  function addEquity(p) {
    var sec = Math.floor(p.t / 1000);
    Object.keys(p.pnl).forEach(function (q) {
      var s = S.series.get(q);
      if (!s) { s = chart.addSeries(LightweightCharts.LineSeries, { color: colors[S.series.size % colors.length], lineWidth: 2, title: 'PnL ' + q }); S.series.set(q, s); }
      var last = S.lastSec.get(q);
      if (last !== undefined && sec < last) return;
      s.update({ time: sec, value: Number(p.pnl[q]) });
      if (last !== sec) S.equityPoints++;
      S.lastSec.set(q, sec);
    });
    status.equityPoints = S.equityPoints;
  }

  function renderStatus(st) {
    $('run').textContent = st.name + ' (' + st.mode + ')';
    var b = $('state'); b.textContent = st.tradingState.state; b.className = 'badge ' + st.tradingState.state; b.title = st.tradingState.reason;
    S.commandsEnabled = st.commandsEnabled;
    if (!st.commandsEnabled) say('commands disabled: start the run with KANCIL_CONSOLE_TOKEN set');
    renderStrategies(st.strategies);
  }
  function renderStrategies(list) {
    fill('strategies', list, function (tr, s) {
      cell(tr, s.name); cell(tr, s.symbols.join(' ')); cell(tr, s.state, 'badge ' + s.state); cell(tr, s.reason); cell(tr, s.failure ? s.failure.error : '');
      var td = document.createElement('td');
      td.appendChild($('strategy-buttons').content.cloneNode(true));
      td.querySelectorAll('button').forEach(function (btn) { btn.dataset.scope = s.name; });
      tr.appendChild(td);
    });
  }
  function renderPositions(ps, pnl) {
    fill('positions', ps, function (tr, p) { cell(tr, p.strategy); cell(tr, p.symbol); cell(tr, p.position, 'num'); cell(tr, p.fills, 'num'); cell(tr, p.volume, 'num'); cell(tr, p.mark, 'num'); cell(tr, p.pnl + ' ' + p.quote, 'num'); });
    $('pnl').textContent = Object.keys(pnl).map(function (q) { return 'PnL ' + pnl[q] + ' ' + q; }).join('  ');
  }
  function renderBooks(bs) { fill('books', bs, function (tr, b) { cell(tr, b.symbol); cell(tr, b.bidQty, 'num'); cell(tr, b.bid, 'num BUY'); cell(tr, b.ask, 'num SELL'); cell(tr, b.askQty, 'num'); cell(tr, b.ready ? 'yes' : 'NO'); }); }
  function renderBalances(bs) { fill('balances', bs, function (tr, b) { cell(tr, b.asset); cell(tr, b.free, 'num'); cell(tr, b.locked, 'num'); }); }
  function renderOrders() {
    var list = Array.from(S.orders.values()).sort(function (a, b) { return b.t - a.t; });
    fill('orders', list.slice(0, 200), function (tr, o) { cell(tr, o.clientId); cell(tr, o.strategy); cell(tr, o.symbol); cell(tr, o.side, o.side); cell(tr, o.type); cell(tr, o.price, 'num'); cell(tr, o.quantity, 'num'); cell(tr, o.executed, 'num'); cell(tr, o.state); });
    $('orders-count').textContent = '(' + list.length + ')';
    status.orders = list.length;
  }
  function renderFills() {
    fill('fills', S.fills.slice(-100).reverse(), function (tr, f) { cell(tr, time(f.t)); cell(tr, f.strategy); cell(tr, f.symbol); cell(tr, f.side, f.side); cell(tr, f.price, 'num'); cell(tr, f.qty, 'num'); cell(tr, f.commission + ' ' + (f.commissionAsset || ''), 'num'); cell(tr, f.maker ? 'maker' : 'taker'); });
    $('fills-count').textContent = '(' + S.fills.length + ')';
    status.fills = S.fills.length;
  }
  var reasons = {};
  function renderRejections() {
    fill('rejections', S.rejections.slice(-50).reverse(), function (tr, r) { cell(tr, time(r.t)); cell(tr, r.strategy); cell(tr, r.symbol); cell(tr, r.reason); cell(tr, r.message); });
    $('reasons').textContent = Object.keys(reasons).map(function (k) { return k + ' ' + reasons[k]; }).join(', ');
  }
  function logLine(text) { S.lines.push(text); if (S.lines.length > 200) S.lines.shift(); $('log').textContent = S.lines.join('\n'); }
  function eventText(m) {
    switch (m.type) {
      case 'state': return time(m.t) + ' STATE ' + (m.strategy || 'run') + ' ' + m.state + ' (' + m.reason + ')';
      case 'failure': return time(m.t) + ' FAILED ' + m.strategy + ': ' + m.error;
      case 'connection': return time(m.t) + ' ' + m.connection + ' ' + m.status + (m.reason ? ' (' + m.reason + ')' : '');
      case 'book': return time(m.t) + ' book ' + m.symbol + (m.ready ? ' ready' : ' NOT READY (' + m.reason + ')');
      case 'log': return time(m.line.t) + ' ' + m.line.level.toUpperCase() + ' ' + m.line.msg + (m.line.detail ? ' ' + m.line.detail : '');
      default: return '';
    }
  }

  var dirty = {};
  function touch(what) { dirty[what] = true; }
  setInterval(function () {
    if (dirty.orders) renderOrders();
    if (dirty.fills) renderFills();
    if (dirty.rejections) renderRejections();
    dirty = {};
  }, 250);

  function onMessage(m) {
    S.events++; status.events = S.events;
    switch (m.type) {
      case 'order':
        if (TERMINAL[m.order.state]) S.orders.delete(m.order.clientId); else S.orders.set(m.order.clientId, m.order);
        touch('orders'); return;
      case 'fill': S.fills.push(m.fill); if (S.fills.length > 500) S.fills.shift(); touch('fills'); return;
      case 'rejection': S.rejections.push(m.rejection); if (S.rejections.length > 200) S.rejections.shift(); reasons[m.rejection.reason] = (reasons[m.rejection.reason] || 0) + 1; touch('rejections'); return;
      case 'tick': renderPositions(m.positions, m.pnl); renderBooks(m.books); addEquity({ t: m.t, pnl: m.pnl }); return;
      case 'state': if (m.strategy === undefined) { var b = $('state'); b.textContent = m.state; b.className = 'badge ' + m.state; b.title = m.reason; } refreshStrategies(); logLine(eventText(m)); return;
      default: logLine(eventText(m));
    }
  }
  function refreshStrategies() { fetch('/api/status', { headers: headers() }).then(function (r) { return r.json(); }).then(renderStatus).catch(function () {}); }

  function load() {
    return fetch('/api/snapshot', { headers: headers() }).then(function (r) {
      if (r.status === 401) { say('this console needs the token for reads: enter it above'); throw new Error('401'); }
      return r.json();
    }).then(function (s) {
      renderStatus(s.status);
      S.orders = new Map(s.orders.map(function (o) { return [o.clientId, o]; }));
      S.fills = s.fills.slice(); S.rejections = s.rejections.slice(); reasons = s.rejectionsByReason;
      renderOrders(); renderFills(); renderRejections(); renderPositions(s.positions, s.status.pnl); renderBooks(s.books); renderBalances(s.balances);
      s.equity.forEach(addEquity);
      S.lines = []; s.events.forEach(function (m) { logLine(eventText(m)); }); s.logs.forEach(function (l) { logLine(eventText({ type: 'log', line: l })); });
      status.ready = true;
    });
  }

  function follow() {
    fetch('/api/events', { headers: headers() }).then(function (r) {
      if (!r.ok || !r.body) throw new Error('feed ' + r.status);
      status.connected = true; var c = $('conn'); c.textContent = 'live'; c.className = 'badge ACTIVE';
      var reader = r.body.getReader(); var dec = new TextDecoder(); var buf = '';
      function pump() {
        return reader.read().then(function (x) {
          if (x.done) throw new Error('feed ended');
          buf += dec.decode(x.value, { stream: true });
          var i;
          while ((i = buf.indexOf('\n\n')) >= 0) {
            var block = buf.slice(0, i); buf = buf.slice(i + 2);
            var data = block.split('\n').filter(function (l) { return l.indexOf('data: ') === 0; }).map(function (l) { return l.slice(6); }).join('\n');
            if (data) { try { onMessage(JSON.parse(data)); } catch (e) { console.error(e); } }
          }
          return pump();
        });
      }
      return pump();
    }).catch(function () {
      status.connected = false; var c = $('conn'); c.textContent = 'disconnected'; c.className = 'badge HALTED';
      setTimeout(function () { load().then(follow, follow); }, 2000);
    });
  }

  document.addEventListener('click', function (ev) {
    var btn = ev.target.closest ? ev.target.closest('button[data-cmd]') : null;
    if (!btn) return;
    var cmd = btn.dataset.cmd, scope = btn.dataset.scope;
    if (cmd === 'stop' && !confirm('Stop the run? Open orders are cancelled as the config says.')) return;
    var url = scope ? '/api/strategies/' + encodeURIComponent(scope) + '/' + cmd : '/api/' + cmd;
    fetch(url, { method: 'POST', headers: Object.assign({ 'content-type': 'application/json' }, headers()), body: JSON.stringify({ reason: 'dashboard ' + cmd }) })
      .then(function (r) { return r.json().then(function (j) { return { status: r.status, body: j }; }); })
      .then(function (x) {
        status.lastCommand = { cmd: cmd, scope: scope, status: x.status };
        say(x.status < 300 ? (scope || 'run') + ' ' + cmd + ': ok' + (x.body.cancelled !== undefined ? ' (' + x.body.cancelled + ' orders)' : '') : cmd + ': ' + x.status + ' ' + (x.body.error || ''));
        refreshStrategies();
      }).catch(function (e) { say(cmd + ': ' + e.message); });
  });

  load().then(follow, function () { setTimeout(function () { load().then(follow, follow); }, 2000); });
})();
`;
