/**
 * `kancil/indicators`: streaming indicators for strategies, kept out of `kancil`'s main entry
 * because trading-signals' index loads ~150 modules (~0.09 s CPU at every start of a run whose
 * plugins never compute one). The feeders (`fromBars`, `fromCandles`, `fromTrades`) are also in
 * `kancil`; the calculations docs/indicators.md covers are here, and the rest of trading-signals
 * is one `import { ... } from 'trading-signals'` away (kancil resolves it for plugins).
 */
export { fromBars, fromCandles, fromTrades, BarPrice, type BarPriceName, type BarFeed, type StreamingIndicator, type PriceCalculation, type CandleCalculation } from './strategy/indicators.js';
export { SMA, EMA, WMA, DEMA, RSI, MACD, BollingerBands, ATR, ADX, ROC, StochasticOscillator } from 'trading-signals';
