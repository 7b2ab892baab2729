/**
 * kancil's public entry for strategy authors: `import { defineStrategy, z, Decimal } from 'kancil'`,
 * in this repository or in a strategy's own folder (the plugin loader resolves `kancil` and its
 * dependencies for a plugin outside the project). Everything a plugin needs and nothing of the
 * runtime's internals, so this surface stays stable while the internals move.
 */
export { z } from 'zod';
export { defineStrategy, readsTimer } from './strategy/types.js';
export type { StrategyPlugin, StrategyContext, StrategyHandlers, StrategyLogger, PlaceRequest, OwnOrderView, PlotOptions } from './strategy/types.js';
export { symbolRules, givenOrRule, type SymbolRules, type RoundMode, type DecimalInput } from './strategy/symbolRules.js';
export { decimalParam, positiveDecimalParam } from './strategy/params.js';
export { CappedOrders } from './strategy/cappedOrders.js';
export { fromBars, fromCandles, fromTrades, BarPrice, type BarPriceName, type BarFeed, type StreamingIndicator, type PriceCalculation, type CandleCalculation } from './strategy/indicators.js';
// The calculations (SMA, RSI...) are in `kancil/indicators` (src/indicators.ts), so a plugin that
// computes none does not load trading-signals at start.
export { Decimal, ZERO, floorToStep, ceilToStep, isMultipleOf, parseDecimal, decimalPlacesOfStep } from './core/decimal.js';
export { unitsOfDecimal, decimalOfScaled } from './core/decimalScaled.js';
export { divRound, mulDivRound } from './core/intDiv.js';
export { splitSymbol } from './core/symbols.js';
export { parseSymbolFilters, type SymbolFilters, type WireFilter } from './core/filters.js';
export { isKlineInterval, KlineInterval, type KlineIntervalName, type OrderTypeName, type OrderSideName, type TimeInForceName } from './core/enums.js';
export { compareTradeIds, type TradeId } from './core/tradeId.js';
export type { BookView } from './core/bookView.js';
export type { BookLevel } from './core/types.js';
export type * from './core/marketEvents.js';
export { isTerminalState, assertNever } from './bus/events.js';
export type * from './bus/events.js';
export type { PlaceIntent, Intent } from './bus/intents.js';
