/**
 * Sweeps over several recordings run separately (`eachRecording: true` in the grid): each point
 * runs once per recording file, each run from the configured budget, and the point's figures are
 * the runs combined. Money adds exactly (decimal sums of net, realized and unrealized PnL, fees,
 * turnover); counts add; returnPct and turnoverRatio are taken on the one budget; drawdown is the
 * worst run's; fillRatio and qtyFillRatio are order-weighted means; positions add up what each run
 * held at its end. Sharpe and Sortino do not combine across separate runs: they are n/a, and each
 * recording's own figures are listed beside the point.
 */
import { Decimal } from '../core/decimal.js';
import { roundStat } from './metrics.js';
import type { StrategyMetrics } from './result.js';

/** One recording's run of a point. */
export interface RecordingRow {
  readonly file: string;
  readonly metrics: StrategyMetrics | undefined;
  readonly error?: string;
}

const sum = (xs: readonly string[]): Decimal => xs.reduce((a, x) => a.plus(x), new Decimal(0));

/** The figures of separate runs of one point as one (see the file comment for each rule). */
export function combineMetrics(runs: readonly StrategyMetrics[]): StrategyMetrics {
  const first = runs[0];
  if (first === undefined) throw new RangeError('no runs to combine');
  if (runs.length === 1) return first;
  const init = new Decimal(first.initialEquity);
  const net = sum(runs.map((m) => m.netPnl));
  const turnover = sum(runs.map((m) => m.turnover));
  const count = (k: 'orders' | 'ordersFilled' | 'ordersCanceled' | 'ordersRejected' | 'ordersOpen' | 'riskRejections' | 'trades'): number => runs.reduce((a, m) => a + m[k], 0);
  const orders = count('orders');
  const weighted = (k: 'fillRatio' | 'qtyFillRatio'): number => (orders === 0 ? 0 : roundStat(runs.reduce((a, m) => a + m[k] * m.orders, 0) / orders));
  const worst = runs.reduce((w, m) => (m.maxDrawdownPct > w.maxDrawdownPct ? m : w), first);
  const positions: Record<string, string> = {};
  for (const m of runs) for (const [s, q] of Object.entries(m.positions)) positions[s] = new Decimal(positions[s] ?? 0).plus(q).toFixed();
  const note = `not combined across ${runs.length} separate runs: see each recording's figures`;
  return {
    quoteAsset: first.quoteAsset,
    initialEquity: first.initialEquity,
    finalEquity: init.plus(net).toFixed(),
    realizedPnl: sum(runs.map((m) => m.realizedPnl)).toFixed(),
    unrealizedPnl: sum(runs.map((m) => m.unrealizedPnl)).toFixed(),
    fees: sum(runs.map((m) => m.fees)).toFixed(),
    netPnl: net.toFixed(),
    returnPct: init.isZero() ? 0 : roundStat(net.div(init).mul(100).toNumber()),
    maxDrawdown: worst.maxDrawdown,
    maxDrawdownPct: worst.maxDrawdownPct,
    sharpePerPeriod: null,
    sortinoPerPeriod: null,
    sharpe: null,
    sortino: null,
    ratioSample: { ...first.ratioSample, returns: runs.reduce((a, m) => a + m.ratioSample.returns, 0), spanMs: runs.reduce((a, m) => a + m.ratioSample.spanMs, 0) },
    ratioNotes: { sharpePerPeriod: note, sortinoPerPeriod: note, sharpe: note, sortino: note },
    turnover: turnover.toFixed(),
    turnoverRatio: init.isZero() ? 0 : roundStat(turnover.div(init).toNumber()),
    orders,
    ordersFilled: count('ordersFilled'),
    ordersCanceled: count('ordersCanceled'),
    ordersRejected: count('ordersRejected'),
    ordersOpen: count('ordersOpen'),
    riskRejections: count('riskRejections'),
    trades: count('trades'),
    fillRatio: weighted('fillRatio'),
    qtyFillRatio: weighted('qtyFillRatio'),
    positions,
  };
}

/** The per-recording rows of the ranked points as Markdown (rank order). */
export function recordingsTable(rows: readonly { rank: number | null; params: Record<string, unknown>; recordings?: readonly RecordingRow[] }[]): string {
  const lines = rows.flatMap((r) =>
    (r.recordings ?? []).map((x) => {
      const m = x.metrics;
      const figures = x.error !== undefined ? [`FAILED: ${x.error.replace(/\|/g, '\\|').replace(/\n/g, ' ')}`, '', '', '', ''] : m === undefined ? ['', '', '', '', ''] : [m.netPnl, String(m.returnPct), String(m.maxDrawdownPct), m.fees, String(m.trades)];
      return `| ${r.rank ?? '-'} | ${JSON.stringify(r.params)} | ${x.file} | ${figures.join(' | ')} |`;
    }),
  );
  if (lines.length === 0) return '';
  return `\nPer recording (each run from the configured budget; the ranked figures combine them: PnL, fees and counts added, drawdown the worst, Sharpe and Sortino n/a):\n\n| rank | params | recording | netPnl | returnPct | maxDrawdownPct | fees | trades |\n|${' --- |'.repeat(8)}\n${lines.join('\n')}\n`;
}
