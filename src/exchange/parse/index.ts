/** Wire -> domain parsers of both REST interfaces, plus generic field helpers for the stream side. */
export * from './fields.js';
export type * from './records.js';
export * from './symbol.js';
export * from './order.js';
export * from './marketData.js';
export * from './account.js';
export * from './wallet.js';
export * from './rules.js';
export * from './legacy.js';
