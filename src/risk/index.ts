/** Risk checker: exchange filters, execution rules, user limits and trading states. Pure. */
export * from './types.js';
export * from './rules.js';
export * from './checkIntent.js';
export * from './tradingState.js';
export { checkIntentReference } from './reference/checkIntentReference.js';
