/**
 * The dashboard's stylesheet and browser script (plain ES2017, run as is: no build step). The
 * script keeps the page's state from /api/snapshot and the /api/events stream, draws with
 * lightweight-charts the price of one symbol with our open orders and fills, PnL per quote asset
 * and profit per UTC day, pages older fills from /api/fills, and posts commands with the
 * operator's token. No inline handlers or style attributes, so a strict CSP allows all of it. It
 * writes every value with textContent. `window.__kancilConsole` reports what is shown (the browser test reads it).
 */

/** The page's CSS. */
export const DASHBOARD_CSS = String.raw`
body { font: 13px/1.35 system-ui, sans-serif; margin: 0; background: #f5f6f8; color: #1d2330; }
header { position: sticky; top: 0; background: #1d2330; color: #fff; padding: 8px 14px; z-index: 2; }
header h1 { display: inline; font-size: 16px; margin-right: 12px; }
.controls { margin-top: 6px; display: flex; flex-wrap: wrap; gap: 4px; align-items: center; }
button { font: inherit; margin: 0; padding: 2px 8px; cursor: pointer; border: 1px solid #8892a6; border-radius: 3px; background: #fff; }
button:disabled { cursor: default; opacity: 0.5; }
button.danger { background: #b3261e; color: #fff; border-color: #b3261e; }
input { font: inherit; padding: 2px 6px; margin-left: 8px; }
.badge { padding: 1px 8px; border-radius: 9px; background: #546e7a; color: #fff; font-weight: 600; }
.ACTIVE { background: #2e7d32; } .REDUCING { background: #ef6c00; } .HALTED { background: #b3261e; }
main { display: grid; grid-template-columns: repeat(auto-fill, minmax(min(100%, 400px), 1fr)); grid-auto-flow: row dense; gap: 10px; padding: 10px; }
section { background: #fff; border-radius: 5px; padding: 6px 10px; overflow: auto; max-height: 440px; min-width: 0; }
section.wide { grid-column: 1 / -1; }
@media (min-width: 900px) { section.span2 { grid-column: span 2; } }
h2 { font-size: 14px; margin: 4px 0 6px; }
h2 button { font-size: 12px; padding: 0 6px; margin-left: 4px; font-weight: normal; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; padding: 2px 6px; border-bottom: 1px solid #e3e6ea; }
td { white-space: nowrap; }
td.text { white-space: normal; overflow-wrap: anywhere; }
th.num, td.num { text-align: right; font-variant-numeric: tabular-nums; }
.actions { display: flex; flex-wrap: wrap; gap: 4px; }
.BUY { color: #2e7d32; } .SELL { color: #b3261e; }
.plot { height: 260px; }
#books tbody tr { cursor: pointer; }
#books tr.selected td { background: #eef3fb; }
#log { font: 12px/1.4 ui-monospace, monospace; }
#log div { white-space: pre-wrap; overflow-wrap: anywhere; border-bottom: 1px solid #f0f1f3; }
#log .lv { display: inline-block; min-width: 5ch; font-weight: 600; }
#log .warn .lv { color: #ef6c00; } #log .error .lv, #log .fatal .lv { color: #b3261e; } #log .event .lv { color: #1565c0; }
#log .kv { color: #5b6475; }
#reasons { margin-bottom: 4px; color: #5b6475; }
#cmd-result { margin-left: 8px; }
`;

/** The page's script. */
export const DASHBOARD_SCRIPT = String.raw`
(function () {
  'use strict';
  var PAGE = 100;
  var S = { orders: new Map(), fills: [], fillsTotal: 0, fillsOffset: 0, pageFills: null, rejections: [], rejectionsTotal: 0, lines: [], series: new Map(), lastSec: new Map(), equityPoints: 0, pricePoints: 0, priceSymbol: null, priceLast: -1, priceLines: [], dailyAt: 0, events: 0, commandsEnabled: false };
  var status = window.__kancilConsole = { ready: false, orders: 0, fills: 0, fillsTotal: 0, events: 0, equityPoints: 0, pricePoints: 0, markers: 0, orderLines: 0, dailyBars: 0, logLines: 0, accountReads: 0, connected: false, lastCommand: null };
  var TERMINAL = { FILLED: 1, CANCELED: 1, REJECTED: 1, EXPIRED: 1 };
  var $ = function (id) { return document.getElementById(id); };

  var hash = /[#&]token=([^&]+)/.exec(location.hash);
  if (hash) { sessionStorage.setItem('kancilToken', decodeURIComponent(hash[1])); history.replaceState(null, '', location.pathname); }
  function token() { return sessionStorage.getItem('kancilToken') || ''; }
  function headers() { var t = token(); return t ? { authorization: 'Bearer ' + t } : {}; }
  $('save-token').addEventListener('click', function () { sessionStorage.setItem('kancilToken', $('token').value.trim()); $('token').value = ''; say('token set for this tab'); });

  function say(text) { $('cmd-result').textContent = text; }
  function cell(tr, text, cls) { var td = document.createElement('td'); td.textContent = text === undefined || text === null ? '-' : String(text); if (cls) td.className = cls; tr.appendChild(td); return td; }
  function fill(id, rows, make) { var body = $(id).tBodies[0]; var out = document.createDocumentFragment(); rows.forEach(function (r) { var tr = document.createElement('tr'); make(tr, r); out.appendChild(tr); }); body.replaceChildren(out); }
  function time(t) { return new Date(t).toISOString().slice(11, 23); }
  function getJson(url) { return fetch(url, { headers: headers() }).then(function (r) { if (!r.ok) throw new Error(url + ': ' + r.status); return r.json(); }); }

  var chartOptions = { height: 260, autoSize: true, timeScale: { timeVisible: true, secondsVisible: true } };
  var chart = LightweightCharts.createChart($('equity'), chartOptions);
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

  // Price chart of one symbol: the mid each tick, our fills as markers, our open orders as lines.
  // Chart values are display numbers only; every figure in the tables keeps its exact digits.
  var priceChart = LightweightCharts.createChart($('price'), chartOptions);
  // The scale takes in our orders' prices too: an order lines up against the price, not off-screen.
  var orderPrices = [];
  function withOrders(original) {
    var r = original();
    if (!r || orderPrices.length === 0) return r;
    var lo = Math.min.apply(null, orderPrices.concat([r.priceRange.minValue])), hi = Math.max.apply(null, orderPrices.concat([r.priceRange.maxValue]));
    return { priceRange: { minValue: lo, maxValue: hi }, margins: r.margins };
  }
  var mid = priceChart.addSeries(LightweightCharts.LineSeries, { color: '#1d2330', lineWidth: 1, title: 'mid', autoscaleInfoProvider: withOrders });
  var markers = LightweightCharts.createSeriesMarkers(mid, []);
  function selectSymbol(sym) {
    if (sym === S.priceSymbol) return;
    S.priceSymbol = sym; S.priceLast = -1; S.pricePoints = 0;
    mid.setData([]); $('price-symbol').textContent = sym || '';
    drawMarkers(); drawOrderLines();
  }
  function addPrice(books, t) {
    if (S.priceSymbol === null && books.length > 0) selectSymbol(books[0].symbol);
    var b = books.filter(function (x) { return x.symbol === S.priceSymbol; })[0];
    if (!b || b.bid === undefined || b.ask === undefined) return;
    var sec = Math.floor(t / 1000);
    if (sec < S.priceLast) return;
    mid.update({ time: sec, value: (Number(b.bid) + Number(b.ask)) / 2 });
    if (sec !== S.priceLast) S.pricePoints++;
    S.priceLast = sec; status.pricePoints = S.pricePoints;
  }
  function drawMarkers() {
    var list = S.fills.filter(function (f) { return f.symbol === S.priceSymbol; }).map(function (f) {
      var buy = f.side === 'BUY';
      return { time: Math.floor(f.t / 1000), position: buy ? 'belowBar' : 'aboveBar', shape: buy ? 'arrowUp' : 'arrowDown', color: buy ? '#2e7d32' : '#b3261e' };
    });
    markers.setMarkers(list); status.markers = list.length;
  }
  function drawOrderLines() {
    S.priceLines.forEach(function (l) { mid.removePriceLine(l); });
    var shown = Array.from(S.orders.values()).filter(function (o) { return o.symbol === S.priceSymbol && o.price !== undefined; }).slice(0, 40);
    orderPrices = shown.map(function (o) { return Number(o.price); });
    S.priceLines = shown.map(function (o) {
      return mid.createPriceLine({ price: Number(o.price), color: o.side === 'BUY' ? '#2e7d32' : '#b3261e', lineWidth: 1, lineStyle: 2, axisLabelVisible: true, title: o.side + ' ' + o.quantity });
    });
    status.orderLines = S.priceLines.length;
  }

  // Profit per UTC day (the ledger's fills of this run, marked as kancil profit --by day does).
  var dailyChart = LightweightCharts.createChart($('daily'), { height: 260, autoSize: true });
  var dailySeries = new Map();
  function loadDaily() {
    S.dailyAt = Date.now();
    return getJson('/api/daily').then(function (days) {
      var byQuote = {};
      days.forEach(function (d) { (byQuote[d.quote] = byQuote[d.quote] || []).push({ time: d.day, value: Number(d.pnl), color: Number(d.pnl) < 0 ? '#b3261e' : '#2e7d32' }); });
      var bars = 0;
      Object.keys(byQuote).forEach(function (q) {
        var s = dailySeries.get(q);
        if (!s) { s = dailyChart.addSeries(LightweightCharts.HistogramSeries, { title: 'PnL ' + q, priceFormat: { type: 'price', precision: 2, minMove: 0.01 } }); dailySeries.set(q, s); }
        s.setData(byQuote[q]); bars += byQuote[q].length;
      });
      status.dailyBars = bars;
    });
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
      cell(tr, s.name); cell(tr, s.symbols.join(' '));
      var badge = document.createElement('span'); badge.className = 'badge ' + s.state; badge.textContent = s.state; cell(tr, '').replaceChildren(badge);
      cell(tr, s.reason, 'text'); cell(tr, s.failure ? s.failure.error : '', 'text');
      var div = document.createElement('div'); div.className = 'actions';
      div.appendChild($('strategy-buttons').content.cloneNode(true));
      div.querySelectorAll('button').forEach(function (btn) { btn.dataset.scope = s.name; });
      cell(tr, '').replaceChildren(div);
    });
  }
  function renderPositions(ps, pnl) {
    fill('positions', ps, function (tr, p) { cell(tr, p.strategy); cell(tr, p.symbol); cell(tr, p.position, 'num'); cell(tr, p.fills, 'num'); cell(tr, p.volume, 'num'); cell(tr, p.mark, 'num'); cell(tr, p.realized, 'num'); cell(tr, p.unrealized, 'num'); cell(tr, p.pnl + ' ' + p.quote, 'num'); });
    $('pnl').textContent = Object.keys(pnl).map(function (q) { return 'PnL ' + pnl[q] + ' ' + q; }).join('  ');
  }
  function renderBooks(bs) {
    fill('books', bs, function (tr, b) {
      tr.dataset.symbol = b.symbol; if (b.symbol === S.priceSymbol) tr.className = 'selected';
      cell(tr, b.symbol); cell(tr, b.bidQty, 'num'); cell(tr, b.bid, 'num BUY'); cell(tr, b.ask, 'num SELL'); cell(tr, b.askQty, 'num'); cell(tr, b.ready ? 'yes' : 'NO');
    });
  }
  function renderBalances(bs) { fill('balances', bs, function (tr, b) { cell(tr, b.asset); cell(tr, b.free, 'num'); cell(tr, b.locked, 'num'); }); }
  // Balances move with every fill (live: the account stream): read again every few seconds.
  function loadAccount() {
    return getJson('/api/account').then(function (a) {
      renderBalances(a.balances);
      $('equity-total').textContent = a.equity ? '(equity ' + a.equity.value + ' ' + a.equity.quote + (a.equity.unvalued.length ? '; not valued: ' + a.equity.unvalued.join(', ') : '') + ')' : '';
      status.accountReads++;
    });
  }
  setInterval(function () { if (status.ready) loadAccount().catch(function () {}); }, 5000);
  function renderOrders() {
    var list = Array.from(S.orders.values()).sort(function (a, b) { return b.t - a.t; });
    var shown = list.slice(0, 200);
    fill('orders', shown, function (tr, o) { cell(tr, o.clientId); cell(tr, o.strategy); cell(tr, o.symbol); cell(tr, o.side, o.side); cell(tr, o.type); cell(tr, o.price, 'num'); cell(tr, o.quantity, 'num'); cell(tr, o.executed, 'num'); cell(tr, o.state); });
    $('orders-count').textContent = shown.length < list.length ? '(newest ' + shown.length + ' of ' + list.length + ')' : '(' + list.length + ')';
    status.orders = list.length;
    drawOrderLines();
  }
  function fillRow(tr, f) { cell(tr, time(f.t)); cell(tr, f.strategy); cell(tr, f.symbol); cell(tr, f.side, f.side); cell(tr, f.price, 'num'); cell(tr, f.qty, 'num'); cell(tr, f.commission + ' ' + (f.commissionAsset || ''), 'num'); cell(tr, f.maker ? 'maker' : 'taker'); }
  // Page 0 follows the feed; older pages come from /api/fills (the ledger) and stay put.
  function renderFills() {
    var rows = S.fillsOffset === 0 ? S.fills.slice(-PAGE).reverse() : (S.pageFills || []);
    fill('fills', rows, fillRow);
    var from = rows.length === 0 ? 0 : S.fillsOffset + 1;
    $('fills-count').textContent = '(' + from + '-' + (S.fillsOffset + rows.length) + ' of ' + S.fillsTotal + ', newest first)';
    document.querySelector('button[data-page="newer"]').disabled = S.fillsOffset === 0;
    document.querySelector('button[data-page="older"]').disabled = S.fillsOffset + rows.length >= S.fillsTotal;
    status.fills = S.fills.length; status.fillsTotal = S.fillsTotal;
  }
  function pageFills(dir) {
    var offset = Math.max(0, S.fillsOffset + (dir === 'older' ? PAGE : -PAGE));
    if (offset === 0) { S.fillsOffset = 0; S.pageFills = null; renderFills(); return; }
    getJson('/api/fills?offset=' + offset + '&limit=' + PAGE).then(function (p) {
      S.fillsOffset = offset; S.pageFills = p.fills; S.fillsTotal = Math.max(S.fillsTotal, p.total); renderFills();
    }).catch(function (e) { say('fills: ' + e.message); });
  }
  var reasons = {};
  function renderRejections() {
    fill('rejections', S.rejections.slice(-50).reverse(), function (tr, r) { cell(tr, time(r.t)); cell(tr, r.strategy, 'text'); cell(tr, r.symbol, 'text'); cell(tr, r.reason, 'text'); cell(tr, r.message, 'text'); });
    $('rejections-count').textContent = '(newest ' + Math.min(50, S.rejections.length) + ' of ' + S.rejectionsTotal + ')';
    $('reasons').textContent = Object.keys(reasons).map(function (k) { return k + ' ' + reasons[k]; }).join(', ');
  }

  // Log lines as time, level, message and key=value fields (the feed sends the fields as JSON).
  function fieldsText(detail) {
    if (!detail) return '';
    var o;
    try { o = JSON.parse(detail); } catch (e) { return detail; }
    if (o === null || typeof o !== 'object') return String(o);
    return Object.keys(o).map(function (k) { var v = o[k]; return k + '=' + (v !== null && typeof v === 'object' ? JSON.stringify(v) : String(v)); }).join(' ');
  }
  function logLine(line) {
    if (!line) return;
    S.lines.push(line); if (S.lines.length > 200) S.lines.shift();
    var div = document.createElement('div'); div.className = line.level;
    var lv = document.createElement('span'); lv.className = 'lv'; lv.textContent = line.level.toUpperCase();
    var kv = document.createElement('span'); kv.className = 'kv'; kv.textContent = line.fields ? ' ' + line.fields : '';
    div.append(time(line.t) + ' ', lv, ' ' + line.msg, kv);
    var box = $('log'); box.prepend(div);
    while (box.childElementCount > 200) box.lastElementChild.remove();
    status.logLines = S.lines.length;
  }
  function eventLine(m) {
    switch (m.type) {
      case 'state': return { t: m.t, level: 'event', msg: 'STATE ' + (m.strategy || 'run') + ' ' + m.state, fields: 'reason=' + m.reason };
      case 'failure': return { t: m.t, level: 'error', msg: 'FAILED ' + m.strategy, fields: 'error=' + m.error };
      case 'connection': return { t: m.t, level: 'event', msg: m.connection + ' ' + m.status, fields: m.reason ? 'reason=' + m.reason : '' };
      case 'book': return { t: m.t, level: m.ready ? 'event' : 'warn', msg: 'book ' + m.symbol + (m.ready ? ' ready' : ' NOT READY'), fields: m.ready ? '' : 'reason=' + m.reason };
      case 'log': return { t: m.line.t, level: m.line.level, msg: m.line.msg, fields: fieldsText(m.line.detail) };
      default: return null;
    }
  }

  var dirty = {};
  function touch(what) { dirty[what] = true; }
  setInterval(function () {
    if (dirty.orders) renderOrders();
    if (dirty.fills) { renderFills(); drawMarkers(); if (Date.now() - S.dailyAt > 5000) loadDaily().catch(function () {}); }
    if (dirty.rejections) renderRejections();
    dirty = {};
  }, 250);
  setInterval(function () { loadDaily().catch(function () {}); }, 60000);

  function onMessage(m) {
    S.events++; status.events = S.events;
    switch (m.type) {
      case 'order':
        if (TERMINAL[m.order.state]) S.orders.delete(m.order.clientId); else S.orders.set(m.order.clientId, m.order);
        touch('orders'); return;
      case 'fill': S.fills.push(m.fill); S.fillsTotal++; if (S.fills.length > 500) S.fills.shift(); if (S.fillsOffset > 0) S.fillsOffset++; touch('fills'); return;
      case 'rejection': S.rejections.push(m.rejection); S.rejectionsTotal++; if (S.rejections.length > 200) S.rejections.shift(); reasons[m.rejection.reason] = (reasons[m.rejection.reason] || 0) + 1; touch('rejections'); return;
      case 'tick': renderPositions(m.positions, m.pnl); renderBooks(m.books); addEquity({ t: m.t, pnl: m.pnl }); addPrice(m.books, m.t); return;
      case 'state': if (m.strategy === undefined) { var b = $('state'); b.textContent = m.state; b.className = 'badge ' + m.state; b.title = m.reason; } refreshStrategies(); logLine(eventLine(m)); return;
      default: logLine(eventLine(m));
    }
  }
  function refreshStrategies() { getJson('/api/status').then(renderStatus).catch(function () {}); }

  function load() {
    return fetch('/api/snapshot', { headers: headers() }).then(function (r) {
      if (r.status === 401) { say('this console needs the token for reads: enter it above'); throw new Error('401'); }
      return r.json();
    }).then(function (s) {
      renderStatus(s.status);
      S.orders = new Map(s.orders.map(function (o) { return [o.clientId, o]; }));
      S.fills = s.fills.slice(); S.fillsTotal = s.fillsTotal; S.fillsOffset = 0; S.pageFills = null;
      S.rejections = s.rejections.slice(); reasons = s.rejectionsByReason;
      S.rejectionsTotal = Object.keys(reasons).reduce(function (n, k) { return n + reasons[k]; }, 0);
      renderBooks(s.books); if (s.books.length > 0) selectSymbol(S.priceSymbol || s.books[0].symbol);
      renderOrders(); renderFills(); drawMarkers(); renderRejections(); renderPositions(s.positions, s.status.pnl); renderBalances(s.balances); loadAccount().catch(function () {});
      s.equity.forEach(addEquity);
      S.lines = []; $('log').replaceChildren();
      s.events.forEach(function (m) { logLine(eventLine(m)); }); s.logs.forEach(function (l) { logLine(eventLine({ type: 'log', line: l })); });
      return loadDaily().catch(function () {});
    }).then(function () { status.ready = true; });
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
    if (!ev.target.closest) return;
    var page = ev.target.closest('button[data-page]');
    if (page) { pageFills(page.dataset.page); return; }
    var row = ev.target.closest('#books tbody tr');
    if (row) { selectSymbol(row.dataset.symbol); return; }
    var btn = ev.target.closest('button[data-cmd]');
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
