/** Matching engine: a pure, deterministic simulator of the exchange's order rules. */
export { MatchingEngine } from './engine.js';
export type * from './types.js';
export type * from './events.js';
