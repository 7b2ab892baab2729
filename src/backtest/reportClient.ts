/**
 * The report's browser script (plain ES5 in a string, run from the inlined chart data): equity
 * with the buy-and-hold benchmark, the underwater curve, and per symbol candles (bar data) or a
 * mark line (ticks) with fill markers whose details show on hover and the strategies' plotted
 * series: over the price, or in panes of their own below it (one per pane name, each with its own
 * axis). Every chart opens on the whole run. Exposes counts on window.__kancilReport for tests.
 */
export const REPORT_CLIENT = String.raw`
(function () {
  var D = JSON.parse(document.getElementById('chart-data').textContent);
  var LC = window.LightweightCharts;
  var colors = ['#2962FF', '#E91E63', '#FF9800', '#4CAF50', '#9C27B0', '#00BCD4'];
  var status = { equityPoints: 0, benchmarkPoints: 0, underwaterPoints: 0, priceCharts: 0, pricePoints: 0, candles: 0, markers: 0, plots: 0, panes: 0, panePlots: 0 };
  // Height of a plot pane below the price, in px.
  var PANE = 160;
  // Whole-run view: a small minimum bar spacing lets fitContent show every point at once.
  var opts = { height: 320, timeScale: { timeVisible: true, secondsVisible: true, minBarSpacing: 0.001 }, rightPriceScale: { autoScale: true } };
  function seconds(points) {
    // lightweight-charts needs strictly increasing whole-second times: the last value per second.
    var out = [];
    for (var i = 0; i < points.length; i++) {
      var t = Math.floor(points[i].t / 1000);
      if (out.length && out[out.length - 1].time === t) out[out.length - 1].value = points[i].v;
      else out.push({ time: t, value: points[i].v });
    }
    return out;
  }
  var eq = LC.createChart(document.getElementById('equity'), opts);
  D.names.forEach(function (n, i) {
    var s = eq.addSeries(LC.LineSeries, { color: colors[i % colors.length], lineWidth: n === 'TOTAL' ? 3 : 1, title: n });
    var data = seconds(D.equity[i]);
    s.setData(data);
    status.equityPoints += data.length;
  });
  if (D.benchmark.length) {
    var b = eq.addSeries(LC.LineSeries, { color: '#9E9E9E', lineWidth: 1, lineStyle: 2, title: 'buy & hold ' + D.benchmarkSymbol });
    var bd = seconds(D.benchmark);
    b.setData(bd);
    status.benchmarkPoints = bd.length;
  }
  eq.timeScale().fitContent();
  var uw = LC.createChart(document.getElementById('underwater'), { height: 200, timeScale: opts.timeScale });
  var us = uw.addSeries(LC.AreaSeries, { lineColor: '#c62828', topColor: 'rgba(198,40,40,0.1)', bottomColor: 'rgba(198,40,40,0.5)', invertFilledArea: true, title: 'drawdown %' });
  var ud = seconds(D.underwater);
  us.setData(ud);
  status.underwaterPoints = ud.length;
  uw.timeScale().fitContent();
  var tip = document.getElementById('tip');
  var holder = document.getElementById('prices');
  D.symbols.forEach(function (S) {
    var h = document.createElement('h3');
    h.textContent = S.symbol + (S.bars.length ? ' candles' : ' mark price') + ' and fills (hover a marker for its details)';
    var div = document.createElement('div');
    div.className = 'chart';
    div.id = 'price-' + S.symbol;
    // Pane names in the order of the series (pane 0 is the price): each its own axis below it.
    var panes = [];
    S.plots.forEach(function (p) { if (p.pane !== undefined && panes.indexOf(p.pane) < 0) panes.push(p.pane); });
    var height = opts.height + PANE * panes.length;
    div.style.height = height + 'px';
    holder.appendChild(h);
    holder.appendChild(div);
    var chart = LC.createChart(div, { height: height, timeScale: opts.timeScale, rightPriceScale: opts.rightPriceScale });
    var main, times;
    if (S.bars.length) {
      main = chart.addSeries(LC.CandlestickSeries, { upColor: '#26a69a', downColor: '#ef5350', wickUpColor: '#26a69a', wickDownColor: '#ef5350', borderVisible: false });
      var cd = S.bars.map(function (x) { return { time: Math.floor(x.t / 1000), open: x.o, high: x.h, low: x.l, close: x.c }; });
      main.setData(cd);
      times = cd.map(function (x) { return x.time; });
      status.candles += cd.length;
    } else {
      main = chart.addSeries(LC.LineSeries, { color: '#455A64', lineWidth: 1, title: S.symbol });
      var ld = seconds(S.line);
      main.setData(ld);
      times = ld.map(function (x) { return x.time; });
      status.pricePoints += ld.length;
    }
    S.plots.forEach(function (p, i) {
      var pane = p.pane === undefined ? 0 : 1 + panes.indexOf(p.pane);
      var ps = chart.addSeries(LC.LineSeries, { color: colors[(i + 2) % colors.length], lineWidth: 1, title: p.strategy + ' ' + p.name, priceLineVisible: false, lastValueVisible: false }, pane);
      ps.setData(seconds(p.points));
      status.plots++;
      if (pane > 0) status.panePlots++;
    });
    if (panes.length) {
      var all = chart.panes();
      all[0].setHeight(opts.height);
      for (var k = 1; k < all.length; k++) all[k].setHeight(PANE);
      status.panes += all.length - 1;
      // Read once the chart has laid out (tests): each pane's height and how many series it draws.
      if (!window.__kancilPanes) window.__kancilPanes = function () { return chart.panes().map(function (x) { return { height: x.getHeight(), series: x.getSeries().length }; }); };
    }
    // Markers snap to the bar (or sample) at or before the fill; their details show on hover only,
    // so many fills never write over each other.
    var details = {};
    var markers = [];
    S.markers.forEach(function (m) {
      if (!times.length) return;
      var t = Math.floor(m.t / 1000), lo = 0, hi = times.length - 1;
      while (lo < hi) { var mid = (lo + hi + 1) >> 1; if (times[mid] <= t) lo = mid; else hi = mid - 1; }
      var at = times[lo];
      (details[at] = details[at] || []).push(m.text);
      markers.push({ time: at, position: m.side === 'BUY' ? 'belowBar' : 'aboveBar', color: m.side === 'BUY' ? '#26a69a' : '#ef5350', shape: m.side === 'BUY' ? 'arrowUp' : 'arrowDown' });
    });
    LC.createSeriesMarkers(main, markers);
    chart.subscribeCrosshairMove(function (param) {
      var d = param.time !== undefined && details[param.time];
      if (!d || !param.point) { tip.style.display = 'none'; return; }
      tip.textContent = d.slice(0, 12).join('\n') + (d.length > 12 ? '\n... ' + (d.length - 12) + ' more' : '');
      var r = div.getBoundingClientRect();
      tip.style.left = (window.scrollX + r.left + param.point.x + 12) + 'px';
      tip.style.top = (window.scrollY + r.top + param.point.y + 12) + 'px';
      tip.style.display = 'block';
    });
    chart.timeScale().fitContent();
    if (status.priceCharts === 0 && times.length) {
      status.firstTime = times[0];
      status.lastTime = times[times.length - 1];
      // Read once the chart has laid out (tests): the range fitContent shows.
      window.__kancilVisible = function () { return chart.timeScale().getVisibleRange(); };
    }
    status.priceCharts++;
    status.markers += markers.length;
  });
  status.ready = true;
  window.__kancilReport = status;
})();
`;
