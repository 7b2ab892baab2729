/**
 * `kancil/indicators`: streaming indicators for strategies, kept out of `kancil`'s main entry
 * because loading trading-signals costs a start (~0.01 s CPU compiled, where the build bundles its
 * ~190 modules into one file; ~0.1 s from the sources) that a run whose plugins never compute one
 * need not pay. The feeders (`fromBars`, `fromCandles`, `fromTrades`) are also in `kancil`; the
 * calculations docs/indicators.md covers are here, and the rest of trading-signals is one
 * `import { ... } from 'trading-signals'` away (kancil resolves it for plugins).
 */
export { fromBars, fromCandles, fromTrades, BarPrice, type BarPriceName, type BarFeed, type StreamingIndicator, type PriceCalculation, type CandleCalculation } from './strategy/indicators.js';
export { SMA, EMA, WMA, DEMA, RSI, MACD, BollingerBands, ATR, ADX, ROC, StochasticOscillator } from 'trading-signals';
