/** SQLite ledger: orders, transitions, fills, balances, intents, risk decisions, journal. */
export * from './Ledger.js';
export * from './schema.js';
export type * from './records.js';
