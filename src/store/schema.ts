/**
 * SQLite schema of the ledger. Decimals are TEXT (exact); times are INTEGER epoch ms.
 * `IF NOT EXISTS` everywhere so opening an existing ledger after a crash is the same call as
 * creating a new one.
 */

/**
 * Schema version written to `meta`; bump with a migration (migrate.ts) when the tables change.
 * 2: fills.trade_id is TEXT (exact digits of a 64-bit id) instead of INTEGER.
 */
export const LEDGER_SCHEMA_VERSION = 2;

/** Columns of the fills table (see {@link fillsTable}). */
const fillsBody = `
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  client_id TEXT NOT NULL,
  strategy TEXT NOT NULL,
  order_id TEXT NOT NULL,
  symbol TEXT NOT NULL,
  side TEXT NOT NULL,
  trade_id TEXT NOT NULL,
  price TEXT NOT NULL,
  qty TEXT NOT NULL,
  quote_qty TEXT NOT NULL,
  commission TEXT NOT NULL,
  commission_asset TEXT,
  is_maker INTEGER NOT NULL,
  time INTEGER NOT NULL,
  source TEXT NOT NULL,
  UNIQUE (order_id, trade_id)
`;

/**
 * The fills table under `name` (the migration builds the new one beside the old). trade_id is
 * TEXT: trade ids are 64-bit and kept as their exact digits (core/tradeId.ts); an INTEGER column
 * would store one above 2^63 - 1 as a REAL, and the driver reads any above 2^53 as a rounded number.
 */
export function fillsTable(name: string): string {
  return `CREATE TABLE IF NOT EXISTS ${name} (${fillsBody});`;
}

/** Index of the fills table (dropped with the old table by the migration, so created again after it). */
export const FILLS_INDEX = 'CREATE INDEX IF NOT EXISTS fills_client ON fills(client_id);';

/** DDL run on every open. */
export const LEDGER_DDL = `
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS journal (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  ts INTEGER NOT NULL,
  kind TEXT NOT NULL,
  data TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS intents (
  intent_id TEXT PRIMARY KEY,
  ts INTEGER NOT NULL,
  strategy TEXT NOT NULL,
  kind TEXT NOT NULL,
  symbol TEXT,
  client_id TEXT,
  data TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS risk_decisions (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  ts INTEGER NOT NULL,
  intent_id TEXT NOT NULL,
  accepted INTEGER NOT NULL,
  adjusted INTEGER NOT NULL,
  reason TEXT,
  message TEXT
);
CREATE TABLE IF NOT EXISTS orders (
  client_id TEXT PRIMARY KEY,
  strategy TEXT NOT NULL,
  intent_id TEXT NOT NULL,
  symbol TEXT NOT NULL,
  side TEXT NOT NULL,
  order_type TEXT NOT NULL,
  time_in_force TEXT,
  price TEXT,
  quantity TEXT,
  quote_order_qty TEXT,
  stop_price TEXT,
  iceberg_qty TEXT,
  stp_mode TEXT,
  venue TEXT NOT NULL,
  order_id TEXT,
  state TEXT NOT NULL,
  cum_qty TEXT NOT NULL,
  cum_quote_qty TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  sent_at INTEGER,
  updated_at INTEGER NOT NULL,
  reason TEXT
);
-- No index on state: every state change of an order rewrote an entry of it (a WAL page per
-- commit); the open orders are found by a scan with or without it (NOT IN uses no index).
DROP INDEX IF EXISTS orders_state;
-- Exchange ids only: an order has none until the exchange answers, and a NULL entry written with
-- the PENDING row and moved at the answer cost two WAL pages an order. Lookups by an id use it.
DROP INDEX IF EXISTS orders_order_id;
CREATE INDEX IF NOT EXISTS orders_order_id_known ON orders(order_id) WHERE order_id IS NOT NULL;
CREATE TABLE IF NOT EXISTS order_transitions (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  ts INTEGER NOT NULL,
  client_id TEXT NOT NULL,
  from_state TEXT,
  to_state TEXT NOT NULL,
  source TEXT NOT NULL,
  detail TEXT
);
-- No index on client_id: no query of a run reads one order's transitions, and each transition
-- wrote an entry of it (a WAL page in three commits of every order).
DROP INDEX IF EXISTS order_transitions_client;
${fillsTable('fills')}
${FILLS_INDEX}
CREATE TABLE IF NOT EXISTS quarantine (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  ts INTEGER NOT NULL,
  client_id TEXT NOT NULL,
  order_id TEXT NOT NULL,
  trade_id TEXT NOT NULL,
  source TEXT NOT NULL,
  reason TEXT NOT NULL,
  data TEXT NOT NULL,
  UNIQUE (order_id, trade_id, source, data)
);
CREATE TABLE IF NOT EXISTS balances (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  ts INTEGER NOT NULL,
  source TEXT NOT NULL,
  asset TEXT NOT NULL,
  free TEXT NOT NULL,
  locked TEXT NOT NULL
);
`;
