/**
 * The result of a backtest as it is serialized (result.json) and rendered (report.html): per
 * strategy metrics, the sampled curves, the fills, what was left open or refused, and the
 * tearsheet over round trips.
 */
import type { StrategyFailure } from '../strategy/StrategyRunner.js';
import type { RiskRatios } from './metrics.js';
import type { DrawdownPeriod } from './drawdowns.js';
import type { ReturnDistribution } from './returnDistribution.js';
import type { HoldingBucket } from './holdingTimes.js';
import type { MonthlyReturn } from './monthlyReturns.js';
import type { Markout } from './markouts.js';
import type { SpreadCapture } from './spreadCapture.js';
import type { QuoteTouch } from './quoteTouch.js';
import type { RollingSharpe } from './rollingSharpe.js';
import type { InventoryPoint } from './inventorySeries.js';
import type { RejectionCount } from './rejections.js';
import type { Bar, PlotSeries } from './chartSeries.js';
import type { RunProvenance } from './provenance.js';


/** Metrics of one strategy, or of the total. Money values are exact decimal strings in the quote currency. */
export interface StrategyMetrics {
  readonly quoteAsset: string;
  readonly initialEquity: string;
  readonly finalEquity: string;
  readonly realizedPnl: string;
  readonly unrealizedPnl: string;
  readonly fees: string;
  readonly netPnl: string;
  readonly returnPct: number;
  readonly maxDrawdown: string;
  readonly maxDrawdownPct: number;
  /**
   * Sharpe and Sortino (risk-free 0) per equity sampling period and annualised (365-day year);
   * null when unavailable, with the reason in `ratioNotes` (rule: metrics.ts riskRatios).
   */
  readonly sharpePerPeriod: number | null;
  readonly sortinoPerPeriod: number | null;
  readonly sharpe: number | null;
  readonly sortino: number | null;
  /** The period returns the ratios come from: count, period (ms) and time spanned (ms). */
  readonly ratioSample: RiskRatios['sample'];
  /** Why each null ratio is null; only unavailable ones appear. */
  readonly ratioNotes: RiskRatios['notes'];
  /** Sum of traded notional. */
  readonly turnover: string;
  /** Turnover divided by initial equity. */
  readonly turnoverRatio: number;
  readonly orders: number;
  readonly ordersFilled: number;
  readonly ordersCanceled: number;
  readonly ordersRejected: number;
  /** Orders not final at the end of the run (neither filled, cancelled, expired nor rejected): listed in `openOrders`. */
  readonly ordersOpen: number;
  readonly riskRejections: number;
  readonly trades: number;
  /** Orders with at least one fill / orders the venue accepted or rejected. */
  readonly fillRatio: number;
  /** Filled quantity / ordered quantity over orders that stated a quantity. */
  readonly qtyFillRatio: number;
  /** Open positions at the end, base quantity per symbol, net of commissions charged in the base asset (what the account holds). */
  readonly positions: Readonly<Record<string, string>>;
}

/** One fill as the report lists it. */
export interface ReportFill {
  readonly t: number;
  readonly strategy: string;
  readonly symbol: string;
  readonly side: 'BUY' | 'SELL';
  readonly price: string;
  readonly qty: string;
  /** Commission of the fill, in `feeAsset` (the engine and the candle venue charge a buy's in the base asset, a sell's in the quote asset). */
  readonly fee: string;
  readonly feeAsset: string | null;
  readonly maker: boolean;
}

/**
 * An order still open when the run ended: a backtest does not cancel it (live, shutdown would), so
 * it is reported rather than left out of the counts.
 */
export interface ReportOpenOrder {
  readonly strategy: string;
  readonly clientId: string;
  readonly symbol: string;
  readonly side: 'BUY' | 'SELL';
  readonly orderType: string;
  readonly state: string;
  /** Limit price, or undefined for a market order. */
  readonly price: string | undefined;
  readonly quantity: string | undefined;
  readonly filledQty: string;
  /** Time of its first order update (when it was submitted). */
  readonly since: number;
}

/** The whole result of a backtest (serialized as report JSON). */
export interface BacktestResult {
  readonly name: string;
  readonly start: number;
  readonly end: number;
  readonly events: number;
  readonly equityIntervalMs: number;
  readonly strategies: Readonly<Record<string, StrategyMetrics>>;
  /** Sum over strategies; undefined when strategies use different quote currencies. */
  readonly total: StrategyMetrics | undefined;
  /** Equity samples: t and one value per strategy (same order as `strategies`) plus total last. */
  readonly equity: readonly { t: number; v: readonly number[] }[];
  /** Mark price samples per symbol. */
  readonly prices: Readonly<Record<string, readonly { t: number; p: number }[]>>;
  readonly fills: readonly ReportFill[];
  /** Orders still open at the end, by strategy (in name order), then in submission order. */
  readonly openOrders: readonly ReportOpenOrder[];
  /** Refused intents and orders per strategy (by name), by reason, most frequent first. */
  readonly rejections: Readonly<Record<string, readonly RejectionCount[]>>;
  /**
   * Strategies stopped by an error of their own (thrown by the plugin), in the order they failed:
   * their figures after that time are those of a strategy that did nothing more. Empty when
   * every strategy ran to the end.
   */
  readonly failures: readonly StrategyFailure[];
  /** What the run could not do that a reader must know (a kline strategy that got no bars): each a sentence. */
  readonly warnings: readonly string[];
  /** Closed round trips (FIFO), in closing order. */
  readonly roundTrips: readonly RoundTrip[];
  /** Trade statistics per strategy (by name), with the markouts of its fills. */
  readonly tearsheet: Readonly<Record<string, TradeStats & { readonly markouts: readonly Markout[]; readonly spreadCaptured: SpreadCapture; readonly quoteTouch?: QuoteTouch }>>;
  /** Candles per symbol of bar data (bounded for the chart; empty for tick data). */
  readonly bars: Readonly<Record<string, readonly Bar[]>>;
  /** Series strategies plotted with ctx.plot (bounded for the chart). */
  readonly plots: readonly PlotSeries[];
  /** What produced the result: config as run, parameters, input files and their hashes, code version (provenance.ts). */
  readonly provenance?: RunProvenance;
}

/** One closed round trip. */
export interface RoundTrip {
  readonly strategy: string;
  readonly symbol: string;
  /** LONG: bought then sold; SHORT: sold then bought back. */
  readonly side: 'LONG' | 'SHORT';
  /** Time of the oldest entry fill it closes, and of the closing fill (ms). */
  readonly entryT: number;
  readonly exitT: number;
  readonly qty: string;
  readonly entryPrice: string;
  readonly exitPrice: string;
  /** Profit in the quote asset after the fees of both legs. */
  readonly pnl: string;
  readonly fees: string;
  /** pnl / entry notional, in percent. */
  readonly returnPct: number;
}

/** The tearsheet figures of one strategy. */
export interface TradeStats {
  readonly roundTrips: number;
  readonly wins: number;
  readonly losses: number;
  /** Winning round trips / all, percent; null without round trips. */
  readonly winRatePct: number | null;
  /** Gross profit of winners / gross loss of losers; null without a loss (or without trips). */
  readonly profitFactor: number | null;
  /** Mean PnL per round trip (quote); null without round trips. */
  readonly expectancy: string | null;
  readonly avgWin: string | null;
  readonly avgLoss: string | null;
  readonly largestWin: string | null;
  readonly largestLoss: string | null;
  readonly maxConsecutiveLosses: number;
  /** Mean time from entry to exit (ms); null without round trips. */
  readonly avgHoldingMs: number | null;
  /** Mean holding time of winning and of losing round trips (ms); null without such trips. */
  readonly avgWinHoldingMs: number | null;
  readonly avgLossHoldingMs: number | null;
  /** Round trips by holding time (holdingTimes.ts buckets), winners and losers apart. */
  readonly holdingTimes: readonly HoldingBucket[];
  /** Share of the run with a position open (any symbol), percent. */
  readonly exposurePct: number;
  /** Compound annual growth of equity, percent; null for a run under tearsheet.ts's MIN_CAGR_SPAN_MS (see cagrNote). */
  readonly cagrPct: number | null;
  readonly cagrNote?: string;
  /** CAGR / max drawdown (both percent); null when either is missing (see calmarNote). */
  readonly calmar: number | null;
  readonly calmarNote?: string;
  /** Longest time equity spent below a previous peak (ms), recovered or not. */
  readonly longestDrawdownMs: number;
  /** The worst drawdown periods (drawdowns.ts WORST_DRAWDOWNS), deepest first. */
  readonly drawdowns: readonly DrawdownPeriod[];
  /** Skew, kurtosis, VaR and CVaR of the per-period equity returns the ratios use. */
  readonly returns: ReturnDistribution;
  /** Equity return per calendar month (UTC), chained month to month. */
  readonly monthlyReturns: readonly MonthlyReturn[];
  /** Per-period Sharpe over a rolling window of the returns (window stated), and its range. */
  readonly rollingSharpe: RollingSharpe;
  /** Round trips and inventory per symbol traded, in symbol order. */
  readonly symbols: Readonly<Record<string, SymbolStats>>;
  /** Buy-and-hold of the first symbol from the run's first to its last mark, percent (fees not counted). */
  readonly buyHoldReturnPct: number | null;
  readonly buyHoldSymbol: string | undefined;
}

/** One symbol's figures in a strategy's tearsheet (perSymbol.ts). */
export interface SymbolStats {
  readonly roundTrips: number;
  readonly wins: number;
  /** Sum of the round trips' PnL (after the fees of both legs), quote asset. */
  readonly netPnl: string;
  /** Largest absolute position held (base asset). */
  readonly maxAbsPosition: string;
  /** Time-weighted mean absolute position over the run (base asset). */
  readonly meanAbsPosition: number;
  /** Share of the run with a long, and with a short, position; percent. */
  readonly longPct: number;
  readonly shortPct: number;
  /** The position after fills over the run, at most inventorySeries.ts's INVENTORY_POINTS of them plus the end (base asset). */
  readonly inventory: readonly InventoryPoint[];
}
