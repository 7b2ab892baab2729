/** Core: domain types, enums, decimals, errors, signing, clock. No I/O, imports nothing of ours. */
export * from './enums.js';
export * from './errors.js';
export * from './configIssue.js';
export * from './decimal.js';
export * from './filters.js';
export * from './signing.js';
export * from './symbols.js';
export * from './clock.js';
export type * from './types.js';
export type * from './marketEvents.js';
export type * from './bookView.js';
export type * from './newOrder.js';
export * from './scaledLevels.js';
export * from './tradeId.js';
export * from './bars.js';
export * from './longTimer.js';
export * from './secretScrub.js';
export * from './yamlLimits.js';
