/**
 * SMA/EMA crossover, long only, on closed candles.
 *
 * Holds a long position of `quantity` while the fast moving average is above the slow one and is
 * flat otherwise. Averages are trading-signals' SMA or EMA fed closed bars by `fromBars`
 * (docs/indicators.md). Orders are MARKET orders, so in
 * candle mode they fill at the next bar's open. One decision per bar: a bar during which one of
 * the strategy's orders is working or executed is not used for a new decision (an order in flight
 * must be seen to finish first; this is also grademark's convention, which the candle benchmark
 * compares against).
 *
 * Parameters:
 * - `fast`, `slow`: periods of the two averages (fast < slow).
 * - `kind`: `SMA` or `EMA`.
 * - `interval`: the kline interval to act on (default `1m`).
 * - `quantity`: base quantity bought on entry (decimal string); the exit sells the whole position,
 *   which is net of the buy's commission when the venue charges it in the base asset (the engine,
 *   the candle venue and the exchange do), so it sells exactly what is held.
 * - `stepSize`: the LOT_SIZE step (default: the symbol's own, from `ctx.rules`; 0 when the run has
 *   no filters for it: no rounding). The exit sells the position floored to it, and a remainder
 *   below one step (what a base-asset fee can leave) counts as flat: it cannot be sold, and must
 *   not keep the strategy from entering again.
 *
 * The averages are binary floats (they only pick the direction); prices and quantities stay exact.
 */
import { z, Decimal, floorToStep, givenOrRule, splitSymbol, decimalParam, positiveDecimalParam, isKlineInterval, defineStrategy, type BusEvent, type KlineIntervalName } from 'kancil';
import { fromBars, EMA, SMA } from 'kancil/indicators';

/** Parameters of the crossover strategy. */
export const smaCrossoverParams = z
  .object({
    fast: z.number().int().min(1).default(10),
    slow: z.number().int().min(2).default(50),
    kind: z.enum(['SMA', 'EMA']).default('SMA'),
    // A spelling no exchange interval has ('1min') would never match a kline: the strategy would never trade.
    interval: z.string().refine(isKlineInterval, 'not a kline interval (1m, 3m, 5m, 15m, 30m, 1h, 2h, 4h, 6h, 8h, 12h, 1d, 3d, 1w, 1M)').default('1m'),
    quantity: positiveDecimalParam.default('0.01'),
    stepSize: decimalParam.optional(),
  })
  .refine((p) => p.fast < p.slow, { message: 'fast must be smaller than slow', path: ['fast'] });

/** SMA/EMA crossover plugin. */
export default defineStrategy({
  name: 'sma-crossover',
  description: 'Long while the fast moving average is above the slow one (trading-signals), market orders on closed candles',
  params: smaCrossoverParams,
  marketEvents: ['kline'],
  timer: false,
  // Live and paper subscribe to this kline stream; a backtest of trade recordings builds these bars.
  klineIntervals: (p) => [p.interval as KlineIntervalName],
  create(ctx) {
    const p = ctx.params;
    const symbol = ctx.symbols[0];
    if (symbol === undefined) throw new RangeError('sma-crossover needs one symbol');
    const { base } = splitSymbol(symbol);
    const qty = new Decimal(p.quantity);
    const step = givenOrRule(p.stepSize, ctx.rules(symbol).stepSize, 0);
    const bars = { symbol, interval: p.interval as KlineIntervalName };
    const fast = fromBars(p.kind === 'SMA' ? new SMA(p.fast) : new EMA(p.fast), bars);
    const slow = fromBars(p.kind === 'SMA' ? new SMA(p.slow) : new EMA(p.slow), bars);
    let busyUntilBarAfter = -Infinity;
    // The open time of the bar after the last closed one: the bar an execution now falls in. Read
    // from the bars, not from the execution's time: a run against a replay gets bars on the
    // recording's clock and executions on the exchange's.
    let openBar = -Infinity;
    const fastName = `${p.kind}(${p.fast})`;
    const slowName = `${p.kind}(${p.slow})`;
    return {
      onEvent(e: BusEvent): void {
        if (e.type === 'fill' || (e.type === 'orderUpdate' && e.state !== 'PENDING')) {
          // The bar containing this execution is not a decision bar.
          busyUntilBarAfter = Math.max(busyUntilBarAfter, openBar);
          return;
        }
        // A closed bar of the symbol and interval feeds both averages (its close's nearest double).
        if (!fast.update(e) || !slow.update(e) || e.type !== 'kline') return;
        openBar = e.closeTime + 1;
        const f = fast.value;
        const s = slow.value;
        if (f === undefined || s === undefined || !slow.isStable) return;
        // Drawn over the price in the backtest report.
        ctx.plot(fastName, f);
        ctx.plot(slowName, s);
        if (ctx.openOrders(symbol).length > 0 || busyUntilBarAfter >= e.openTime) return;
        // What can be sold: the position on the step grid (the position itself without a step).
        const pos = step.isZero() ? ctx.position(base) : floorToStep(ctx.position(base), step);
        if (f > s && !(pos.isPositive() && !pos.isZero())) {
          ctx.place({ symbol, side: 'BUY', orderType: 'MARKET', quantity: qty });
        } else if (f < s && pos.isPositive() && !pos.isZero()) {
          ctx.place({ symbol, side: 'SELL', orderType: 'MARKET', quantity: pos });
        }
      },
    };
  },
});
