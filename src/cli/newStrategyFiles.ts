/**
 * The files `kancil new strategy NAME` writes: a working strategy that imports only from `kancil`
 * (a mean-reversion rule on closed candles that rounds its orders with the symbol's exchange rules
 * and logs its decisions), its unit test on kancil/testing's fake context, and a backtest config
 * over the bundled candles. A starting point that runs, passes its test and backtests as written.
 */

/** What the templates are filled with. */
export interface NewStrategyNames {
  /** The plugin's name (file name without .ts). */
  readonly name: string;
  /** The strategy entry's name in the YAML (1 to 16 of [A-Za-z0-9_-]). */
  readonly entry: string;
  /** `plugin:` as the YAML gives it (a bare name in kancil's own strategies/, else a path). */
  readonly pluginRef: string;
  /** The bundled candle file, relative to the config's folder. */
  readonly candles: string;
}

/** The strategy module. */
export function strategyFile(n: NewStrategyNames): string {
  return `/**
 * ${n.name}: buys when a closed candle closes \`dipBps\` below its simple moving average over
 * \`period\` candles, and sells the whole position when a close gets back above the average.
 * Long only, market orders, one symbol. Quantities are rounded with the symbol's exchange rules
 * (ctx.rules), so the exchange's LOT_SIZE step is not repeated as a parameter.
 */
import { z, defineStrategy, Decimal, decimalParam, isKlineInterval, type BusEvent, type KlineIntervalName } from 'kancil';
import { fromBars, SMA } from 'kancil/indicators';

/** Parameters (YAML \`params:\`); decimals are quoted strings, so no float rounds a quantity. */
export const params = z.object({
  period: z.number().int().min(2).default(20).describe('candles in the moving average'),
  dipBps: z.number().min(0).default(30).describe('how far below the average a close must be to buy (basis points)'),
  quantity: decimalParam.default('0.01').describe('base quantity bought on entry'),
  interval: z.string().refine(isKlineInterval, 'not a kline interval').default('1m').describe('candles acted on'),
});

export default defineStrategy({
  name: '${n.name}',
  description: 'Buys a close dipBps below its moving average, sells when back above (long only, market orders)',
  params,
  // The bars it reads: live and paper runs subscribe to this kline stream, backtests of trade
  // recordings build these bars from the trades (candle files carry their own).
  klineIntervals: (p) => [p.interval as KlineIntervalName],
  create(ctx) {
    const p = ctx.params;
    const symbol = ctx.symbols[0];
    if (symbol === undefined) throw new RangeError('${n.name} needs one symbol');
    const rules = ctx.rules(symbol);
    // A streaming indicator fed the closed bars of this symbol and interval (docs/indicators.md).
    const average = fromBars(new SMA(p.period), { symbol, interval: p.interval as KlineIntervalName });
    return {
      onEvent(e: BusEvent): void {
        if (!average.update(e) || e.type !== 'kline') return;
        // The average only picks a direction: a float is fine there; prices and quantities stay Decimal.
        const avg = average.value;
        if (avg === undefined || !average.isStable || ctx.openOrders(symbol).length > 0) return;
        const close = Number(e.close.toFixed());
        ctx.plot('average', avg);
        const held = rules.roundQty(ctx.position(rules.baseAsset));
        if (held.isZero() && close < avg * (1 - p.dipBps / 10_000)) {
          const qty = rules.roundQty(new Decimal(p.quantity));
          if (qty.lt(rules.minQtyAt(e.close))) {
            ctx.log.warn({ quantity: p.quantity, min: rules.minQtyAt(e.close).toFixed() }, 'quantity below the exchange minimum: no order');
            return;
          }
          ctx.log.info({ close: e.close.toFixed(), avg }, 'dip: buying');
          ctx.place({ symbol, side: 'BUY', orderType: 'MARKET', quantity: qty });
        } else if (!held.isZero() && close > avg) {
          ctx.log.info({ close: e.close.toFixed(), avg }, 'back above the average: selling');
          ctx.place({ symbol, side: 'SELL', orderType: 'MARKET', quantity: held });
        }
      },
    };
  },
});
`;
}

/** Its unit test. */
export function testFile(n: NewStrategyNames): string {
  return `import { describe, expect, it } from 'vitest';
import { Decimal, parseSymbolFilters, type KlineEvent } from 'kancil';
import { fakeContext } from 'kancil/testing';
import plugin, { params } from './${n.name}.js';

function bar(i: number, close: string): KlineEvent {
  const c = new Decimal(close);
  return { type: 'kline', E: i * 60_000 + 59_999, symbol: 'BTC_USDT', interval: '1m', openTime: i * 60_000, closeTime: i * 60_000 + 59_999, firstTradeId: undefined, lastTradeId: undefined, open: c, high: c, low: c, close: c, volume: c, quoteVolume: c, trades: 1, takerBuyBaseVolume: c, takerBuyQuoteVolume: c, closed: true };
}

describe('${n.name}', () => {
  it('buys a dip below the average, rounded to the step, and sells when the close is back above', () => {
    const ctx = fakeContext(params.parse({ period: 3, dipBps: 100, quantity: '0.0123456' }));
    ctx.filters.set('BTC_USDT', parseSymbolFilters([{ filterType: 'LOT_SIZE', minQty: '0.001', maxQty: '100', stepSize: '0.001' }]));
    const h = plugin.create(ctx);
    for (const [i, c] of ['100', '100', '100', '95'].entries()) h.onEvent(bar(i, c));
    expect(ctx.intents).toEqual([{ kind: 'place', clientId: 'c1', req: { symbol: 'BTC_USDT', side: 'BUY', orderType: 'MARKET', quantity: new Decimal('0.012') } }]);
    ctx.positions.set('BTC', new Decimal('0.012'));
    h.onEvent(bar(4, '97'));
    expect(ctx.intents).toHaveLength(1);
    h.onEvent(bar(5, '101'));
    expect(ctx.intents[1]).toEqual({ kind: 'place', clientId: 'c2', req: { symbol: 'BTC_USDT', side: 'SELL', orderType: 'MARKET', quantity: new Decimal('0.012') } });
  });

  it('refuses parameters it does not accept', () => {
    expect(params.safeParse({ period: 1 }).success).toBe(false);
    expect(params.safeParse({ quantity: 0.01 }).success).toBe(false);
  });
});
`;
}

/** Its backtest config. */
export function configFile(n: NewStrategyNames): string {
  return `# ${n.name} on the five days of 1m BTCUSDT candles bundled with kancil.
# Run: npx kancil backtest <this file>
mode: backtest
name: ${n.name}
logging: { level: info }
symbols:
  BTC_USDT:
    filters:
      - { filterType: PRICE_FILTER, minPrice: "0.01", maxPrice: "1000000", tickSize: "0.01" }
      - { filterType: LOT_SIZE, minQty: "0.00001", maxQty: "9000", stepSize: "0.00001" }
      - { filterType: NOTIONAL, minNotional: "5", maxNotional: "9000000", applyToMarket: true, avgPriceMins: 5 }
strategies:
  - name: ${n.entry}
    plugin: ${n.pluginRef}
    symbols: [BTC_USDT]
    budget: { USDT: "10000" }
    params: { period: 20, dipBps: 30, quantity: "0.01", interval: 1m }
backtest:
  candles:
    - symbol: BTC_USDT
      interval: 1m
      files: [${JSON.stringify(n.candles)}]
  fees: { makerBps: 10, takerBps: 10 }
  output: ../reports/${n.name}
`;
}
