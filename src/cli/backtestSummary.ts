/**
 * The summary `kancil backtest` prints: per strategy its money figures, percents and ratios with
 * their unit at a readable precision (result.json keeps every digit), its trade and risk figures,
 * what was refused, what failed and the run's warnings.
 */
import type { BacktestResult } from '../backtest/ResultCollector.js';
import type { StrategyMetrics, TradeStats } from '../backtest/result.js';
import { streamsOf } from '../backtest/resultStreams.js';
import { pctText, ratioNumText } from '../backtest/figureText.js';
import { spanText, type RatioField } from '../backtest/metrics.js';
import { ratioText } from '../backtest/ratioText.js';
import { failureText } from '../backtest/failureText.js';
import { markoutText } from '../backtest/reportPeriodTables.js';
import { horizonText } from '../backtest/markouts.js';
import { positionsText } from '../backtest/positionsText.js';
import { rejectionsText } from '../backtest/rejections.js';

/** A ratio rounded for reading, or n/a with its reason. */
function ratio(m: StrategyMetrics, f: RatioField): string {
  const v = m[f];
  return v === null ? ratioText(m, f) : ratioNumText(v);
}

function held(ms: number | null): string {
  return ms === null ? 'n/a' : spanText(ms);
}

/** Calmar, the deepest and the longest drawdown, and the shape of the per-period returns. */
function riskLine(n: string, t: TradeStats, intervalMs: number): string {
  const worst = t.drawdowns[0];
  const dd = worst === undefined ? 'none' : `${pctText(worst.depthPct)} from ${new Date(worst.start).toISOString()} over ${spanText(worst.durationMs)}${worst.recovery === null ? ', not recovered' : ''}`;
  const r = t.returns;
  const shape = r.var95Pct === null ? `n/a (${r.note ?? ''})` : `VaR 95% ${pctText(r.var95Pct)}, CVaR 95% ${pctText(r.cvar95Pct)}, skew ${ratioNumText(r.skew)}, excess kurtosis ${ratioNumText(r.kurtosis)}`;
  return `  ${n} risk: Calmar ${t.calmar === null ? 'n/a' : ratioNumText(t.calmar)}, worst drawdown ${dd}, longest drawdown ${t.longestDrawdownMs === 0 ? 'none' : spanText(t.longestDrawdownMs)}; returns per ${intervalMs} ms: ${shape}`;
}

/** The summary text, one line per figure group. */
export function summary(r: BacktestResult): string {
  const lines = [`backtest ${r.name}: ${new Date(r.start).toISOString()} .. ${new Date(r.end).toISOString()}, ${r.events} bus events, ${streamsOf(r).fillCount} fills`];
  const rows = Object.entries(r.strategies);
  if (r.total && rows.length > 1) rows.push(['TOTAL', r.total]);
  for (const [n, m] of rows) {
    const per = `per ${m.ratioSample.intervalMs} ms`;
    lines.push(`  ${n}: net ${m.netPnl} ${m.quoteAsset} (${pctText(m.returnPct)}), realized ${m.realizedPnl}, unrealized ${m.unrealizedPnl}, fees ${m.fees}, position ${positionsText(m)}, max DD ${pctText(m.maxDrawdownPct)}, Sharpe ${per} ${ratio(m, 'sharpePerPeriod')}, annualised ${ratio(m, 'sharpe')}, Sortino ${per} ${ratio(m, 'sortinoPerPeriod')}, annualised ${ratio(m, 'sortino')}, orders ${m.orders} (${m.ordersOpen} open at the end), trades ${m.trades}, fill ratio ${pctText(m.fillRatio * 100)}`);
  }
  for (const [n, t] of Object.entries(r.tearsheet)) {
    lines.push(`  ${n} round trips ${t.roundTrips}: win rate ${pctText(t.winRatePct)}, profit factor ${ratioNumText(t.profitFactor)}, expectancy ${t.expectancy ?? 'n/a'}, exposure ${pctText(t.exposurePct)}, CAGR ${pctText(t.cagrPct)}, buy and hold ${pctText(t.buyHoldReturnPct)}, held ${held(t.avgWinHoldingMs)} by winners, ${held(t.avgLossHoldingMs)} by losers on average`);
    lines.push(riskLine(n, t, r.equityIntervalMs));
    if (t.markouts.some((m) => m.fills > 0)) lines.push(`  ${n} markouts: ${t.markouts.map((m) => `${horizonText(m.horizonMs)} ${markoutText(m)}`).join(', ')}`);
  }
  for (const [n, counts] of Object.entries(r.rejections)) if (counts.length > 0) lines.push(`  ${n} refused: ${rejectionsText(counts)} (first: ${counts[0]?.example ?? ''})`);
  for (const f of r.failures) lines.push(`  FAILED and stopped: ${failureText(f)}`);
  for (const w of r.warnings ?? []) lines.push(`  WARNING: ${w}`);
  return `${lines.join('\n')}\n`;
}
