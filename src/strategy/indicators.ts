/**
 * Streaming indicators for strategies: a calculation of the `trading-signals` library (or any
 * object with its `update(input, replace)` and `isStable`) fed from the strategy's own events, the
 * closed bars of one symbol and interval or the trades of one symbol, so a handler hands every
 * event over and the indicator picks what it reads (docs/indicators.md).
 *
 * Values are binary floats: they decide *whether* to act (a signal), never an order's price or
 * quantity, which go through the exact decimals (`Decimal`, `ctx.rules()`).
 */
import type { BusEvent } from '../bus/events.js';
import type { KlineIntervalName } from '../core/enums.js';
import type { KlineEvent } from '../core/marketEvents.js';
import { symbolKey } from '../core/symbols.js';

/** A calculation over prices (SMA, EMA, RSI, MACD, Bollinger bands... of trading-signals). */
export interface PriceCalculation<R> {
  update(price: number, replace: boolean): R | null;
  readonly isStable: boolean;
}

/** A calculation over candles' high, low and close (ATR, ADX, stochastic... of trading-signals). */
export interface CandleCalculation<R> {
  update(candle: { readonly high: number; readonly low: number; readonly close: number }, replace: boolean): R | null;
  readonly isStable: boolean;
}

/** Which price of a closed bar feeds a price calculation. */
export const BarPrice = { close: 'close', open: 'open', high: 'high', low: 'low', hl2: 'hl2', hlc3: 'hlc3' } as const;
/** One of {@link BarPrice}. */
export type BarPriceName = (typeof BarPrice)[keyof typeof BarPrice];

/** Where an indicator reads its bars: the closed klines of one symbol and interval. */
export interface BarFeed {
  readonly symbol: string;
  readonly interval: KlineIntervalName;
  /** The bar's price a price calculation reads (default close). */
  readonly price?: BarPriceName;
}

/** An indicator fed from the strategy's events. */
export interface StreamingIndicator<R> {
  /**
   * Hands it an event; true when it was one it reads (a closed bar of its symbol and interval, or
   * a trade of its symbol) and the calculation took it. Any other event is ignored.
   */
  update(event: BusEvent): boolean;
  /** The latest value (undefined until the calculation has had enough input). */
  readonly value: R | undefined;
  /** True once the calculation has had all the input its period needs. */
  readonly isStable: boolean;
  /** How many events it took. */
  readonly count: number;
}

/** The nearest double of a bar's price (from the reader's doubles when it has them). */
function barPrice(e: KlineEvent, which: BarPriceName): number {
  const close = e.closeNumber ?? Number(e.close.toFixed());
  switch (which) {
    case 'close':
      return close;
    case 'open':
      return e.openNumber ?? Number(e.open.toFixed());
    case 'high':
      return e.highNumber ?? Number(e.high.toFixed());
    case 'low':
      return e.lowNumber ?? Number(e.low.toFixed());
    case 'hl2':
      return (barPrice(e, 'high') + barPrice(e, 'low')) / 2;
    case 'hlc3':
      return (barPrice(e, 'high') + barPrice(e, 'low') + close) / 3;
    default: {
      const never: never = which;
      throw new RangeError(`unknown bar price ${String(never)}`);
    }
  }
}

/** A calculation fed one input at a time (a PriceCalculation or a CandleCalculation). */
interface Calculation<R, I> {
  update(input: I, replace: boolean): R | null;
  readonly isStable: boolean;
}

/**
 * An indicator over a calculation; `update` picks the events it reads. Classes rather than
 * closures over `let`s: a strategy hands every event to each of its indicators, and on a bar
 * backtest the closures' layers (and the context slot boxing each new value) cost about as much
 * as the SMA they fed.
 */
abstract class Feeder<R, I> implements StreamingIndicator<R> {
  readonly #calc: Calculation<R, I>;
  #value: R | undefined = undefined;
  #count = 0;

  constructor(calc: Calculation<R, I>) {
    this.#calc = calc;
  }

  abstract update(e: BusEvent): boolean;

  /** Hands one input to the calculation. */
  protected took(input: I): void {
    this.#count++;
    this.#value = this.#calc.update(input, false) ?? undefined;
  }

  get value(): R | undefined {
    return this.#value;
  }

  get isStable(): boolean {
    return this.#calc.isStable;
  }

  get count(): number {
    return this.#count;
  }
}

/** The indicator over `read`: the value of each event `read` accepts (undefined: not one it reads). */
class ReadFeeder<R, I> extends Feeder<R, I> {
  readonly #read: (e: BusEvent) => I | undefined;

  constructor(calc: Calculation<R, I>, read: (e: BusEvent) => I | undefined) {
    super(calc);
    this.#read = read;
  }

  update(e: BusEvent): boolean {
    const input = this.#read(e);
    if (input === undefined) return false;
    this.took(input);
    return true;
  }
}

/** A price calculation over the closed bars of one feed: the bar test and the price read inline (a crossover calls it twice an event). */
class BarFeeder<R> extends Feeder<R, number> {
  readonly #symbol: string;
  readonly #key: string;
  readonly #interval: KlineIntervalName;
  readonly #which: BarPriceName;

  constructor(calc: PriceCalculation<R>, feed: BarFeed) {
    super(calc);
    this.#symbol = feed.symbol;
    this.#key = symbolKey(feed.symbol);
    this.#interval = feed.interval;
    this.#which = feed.price ?? 'close';
  }

  update(e: BusEvent): boolean {
    if (e.type !== 'kline' || !e.closed || e.interval !== this.#interval) return false;
    const s = e.symbol;
    if (s !== this.#symbol && symbolKey(s) !== this.#key) return false;
    this.took(this.#which === 'close' ? (e.closeNumber ?? Number(e.close.toFixed())) : barPrice(e, this.#which));
    return true;
  }
}

/** The indicator over `read`: the value of each event `read` accepts (undefined: not one it reads). */
function streaming<R, I>(calc: Calculation<R, I>, read: (e: BusEvent) => I | undefined): StreamingIndicator<R> {
  return new ReadFeeder(calc, read);
}

/** Symbol matching as the runner routes: the configured spelling, or any spelling of the same pair. */
function sameSymbol(want: string): (symbol: string) => boolean {
  const key = symbolKey(want);
  return (s) => s === want || symbolKey(s) === key;
}

/** A closed kline of the feed, else undefined. */
function barOf(feed: BarFeed): (e: BusEvent) => KlineEvent | undefined {
  const isSymbol = sameSymbol(feed.symbol);
  return (e) => (e.type === 'kline' && e.closed && e.interval === feed.interval && isSymbol(e.symbol) ? e : undefined);
}

/**
 * A price calculation fed from closed bars: `fromBars(new RSI(14), { symbol, interval: '1m' })`.
 * Open (still forming) klines are not read: a value moves once per bar, as in a backtest.
 */
export function fromBars<R>(calc: PriceCalculation<R>, feed: BarFeed): StreamingIndicator<R> {
  return new BarFeeder(calc, feed);
}

/** A candle calculation (high, low, close) fed from closed bars: `fromCandles(new ATR(14), { symbol, interval: '1h' })`. */
export function fromCandles<R>(calc: CandleCalculation<R>, feed: Omit<BarFeed, 'price'>): StreamingIndicator<R> {
  const bar = barOf({ symbol: feed.symbol, interval: feed.interval });
  return streaming(calc, (e) => {
    const k = bar(e);
    return k === undefined ? undefined : { high: barPrice(k, 'high'), low: barPrice(k, 'low'), close: barPrice(k, 'close') };
  });
}

/** A price calculation fed from every trade (and aggregate trade) of a symbol: `fromTrades(new EMA(50), 'BTC_IDR')`. */
export function fromTrades<R>(calc: PriceCalculation<R>, symbol: string): StreamingIndicator<R> {
  const isSymbol = sameSymbol(symbol);
  return streaming(calc, (e) => ((e.type === 'trade' || e.type === 'aggTrade') && isSymbol(e.symbol) ? e.price.toNumber() : undefined));
}
