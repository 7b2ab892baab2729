/**
 * Telegram's read-only answers, as plain text from the run's own views (exact decimals, amounts
 * in each symbol's quote asset, never summed across quote assets).
 */
import { profitByDay } from '../profit.js';
import type { ConsoleRun } from '../source.js';
import { orderJson, pnlByQuote, positionJson } from '../views.js';
import { counted } from '../../core/plural.js';

/** The command list. */
export const HELP = [
  '/status - trading state, strategies, open orders, PnL',
  '/balance - balances (free and locked)',
  '/profit - PnL per strategy and symbol',
  '/daily - PnL per UTC day of this run',
  '/orders - open orders',
  '/halt [strategy] [reason] - only cancels pass',
  '/reduce [strategy] [reason] - only exposure-reducing orders pass',
  '/resume [strategy] [reason] - trading resumes',
  '/stop [reason] - graceful stop of the run',
  '/help - this list',
].join('\n');

/** Most lines of a list in one answer. */
const MAX_LINES = 30;

/** The answer to a read-only command, or undefined when `name` is not one. */
export function commandReply(run: ConsoleRun, name: string): string | undefined {
  switch (name) {
    case 'start':
    case 'help':
      return HELP;
    case 'status':
      return status(run);
    case 'balance': {
      const b = run.balances().filter((x) => !x.free.isZero() || !x.locked.isZero());
      return b.length === 0 ? 'no balances' : capped(b.map((x) => `${x.asset}: ${x.free.toFixed()} free, ${x.locked.toFixed()} locked`));
    }
    case 'profit': {
      const p = run.positions().map(positionJson);
      if (p.length === 0) return 'no positions yet';
      return capped([...p.map((x) => `${x.strategy} ${x.symbol}: position ${x.position}, PnL ${x.quote} ${x.pnl} (mark ${x.mark ?? 'unknown'}), ${counted(x.fills, 'fill')}`), `total: ${total(pnlByQuote(run.positions()))}`]);
    }
    case 'daily': {
      const days = profitByDay(run.recentFills(100_000)).slice(-7 * 4);
      return days.length === 0 ? 'no fills in this run yet' : capped(days.map((d) => `${d.day} ${d.quote}: PnL ${d.pnl}, ${counted(d.fills, 'fill')}, volume ${d.volume}`));
    }
    case 'orders': {
      const o = run.openOrders().map(orderJson);
      return o.length === 0 ? 'no open orders' : capped(o.map((x) => `${x.strategy} ${x.side} ${x.quantity ?? '?'} ${x.symbol} @ ${x.price ?? 'market'} ${x.state}, executed ${x.executed} (${x.clientId})`));
    }
    default:
      return undefined;
  }
}

function status(run: ConsoleRun): string {
  const ts = run.tradingState();
  const lines = [`${run.name} (${run.mode}): trading ${ts.state} (${ts.reason}), up ${Math.round((Date.now() - run.startedAt) / 1000)} s`];
  for (const s of run.strategies()) lines.push(`${s.name} (${s.symbols.join(', ')}): ${s.failure ? `FAILED: ${s.failure.error}` : `${s.state} (${s.reason})`}`);
  lines.push(`open orders: ${run.openOrders().length}; PnL ${total(pnlByQuote(run.positions()))}`);
  return lines.join('\n');
}

function total(pnl: Readonly<Record<string, string>>): string {
  const parts = Object.entries(pnl).map(([q, v]) => `${q} ${v}`);
  return parts.length === 0 ? '0' : parts.join(', ');
}

function capped(lines: readonly string[]): string {
  return lines.length <= MAX_LINES ? lines.join('\n') : [...lines.slice(0, MAX_LINES), `... and ${lines.length - MAX_LINES} more (see the dashboard)`].join('\n');
}
