/** Strategy plugins: contract, loader, runner and each strategy's own book. */
export * from './types.js';
export * from './StrategyRunner.js';
export * from './StrategyBook.js';
export * from './clientIds.js';
export * from './params.js';
export * from './loader.js';
export * from './cappedOrders.js';
export * from './klines.js';
