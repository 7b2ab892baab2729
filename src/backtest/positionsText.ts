/** How the positions at the end of a backtest read in the HTML report and the command's summary. */
import type { StrategyMetrics } from './ResultCollector.js';

/** The positions at the end, `BTC_USDT 0.002631` per symbol (net of base-asset fees), or `flat`. */
export function positionsText(m: StrategyMetrics): string {
  const held = Object.entries(m.positions).filter(([, q]) => !/^-?0(\.0+)?$/.test(q));
  return held.length === 0 ? 'flat' : held.map(([s, q]) => `${s} ${q}`).join(', ');
}
