/** The ledger's prepared statements, each prepared once per connection. */
import type { Database, Statement } from 'better-sqlite3';
import { TERMINAL_STATES } from '../bus/events.js';

/** TERMINAL_STATES as an SQL list, so openOrders() and the set cannot disagree (state names are plain words, safe to inline). */
const TERMINAL_SQL = [...TERMINAL_STATES].map((s) => `'${s}'`).join(', ');

/** The INSERT of an orders row (parameters: orderParams). */
const ORDER_INSERT = `INSERT INTO orders (client_id, strategy, intent_id, symbol, side, order_type, time_in_force, price,
  quantity, quote_order_qty, stop_price, iceberg_qty, stp_mode, venue, order_id, state, cum_qty, cum_quote_qty, created_at,
  sent_at, updated_at, reason) VALUES (@client_id, @strategy, @intent_id, @symbol, @side, @order_type, @time_in_force,
  @price, @quantity, @quote_order_qty, @stop_price, @iceberg_qty, @stp_mode, @venue, @order_id, @state, @cum_qty,
  @cum_quote_qty, @created_at, @sent_at, @updated_at, @reason)`;

/** The statements by name. */
export type LedgerStatements = Record<'journal' | 'intent' | 'risk' | 'insertOrder' | 'insertNewOrder' | 'getOrder' | 'byOrderId' | 'openOrders' | 'allOrders' | 'transition' | 'transitions' | 'allTransitions' | 'fill' | 'fillsOf' | 'quarantine' | 'quarantined' | 'allFills' | 'balance' | 'latestBalances', Statement>;

/** Prepares the ledger's statements on `db` (its schema in place). */
export function prepareStatements(db: Database): LedgerStatements {
  return {
    journal: db.prepare('INSERT INTO journal (ts, kind, data) VALUES (?, ?, ?)'),
    intent: db.prepare(
      'INSERT OR IGNORE INTO intents (intent_id, ts, strategy, kind, symbol, client_id, data) VALUES (?, ?, ?, ?, ?, ?, ?)',
    ),
    risk: db.prepare('INSERT INTO risk_decisions (ts, intent_id, accepted, adjusted, reason, message) VALUES (?, ?, ?, ?, ?, ?)'),
    insertOrder: db.prepare(ORDER_INSERT),
    // Only a clientId already taken is passed over (a NOT NULL column still fails the commit).
    insertNewOrder: db.prepare(`${ORDER_INSERT} ON CONFLICT (client_id) DO NOTHING`),
    getOrder: db.prepare('SELECT * FROM orders WHERE client_id = ?'),
    byOrderId: db.prepare('SELECT * FROM orders WHERE order_id = ?'),
    openOrders: db.prepare(`SELECT * FROM orders WHERE state NOT IN (${TERMINAL_SQL}) ORDER BY created_at, client_id`),
    allOrders: db.prepare('SELECT * FROM orders ORDER BY created_at, client_id'),
    transition: db.prepare(
      'INSERT INTO order_transitions (ts, client_id, from_state, to_state, source, detail) VALUES (?, ?, ?, ?, ?, ?)',
    ),
    transitions: db.prepare('SELECT * FROM order_transitions WHERE client_id = ? ORDER BY id'),
    allTransitions: db.prepare('SELECT * FROM order_transitions ORDER BY id'),
    fill: db.prepare(`INSERT OR IGNORE INTO fills (client_id, strategy, order_id, symbol, side, trade_id, price, qty, quote_qty,
      commission, commission_asset, is_maker, time, source) VALUES (@client_id, @strategy, @order_id, @symbol, @side, @trade_id,
      @price, @qty, @quote_qty, @commission, @commission_asset, @is_maker, @time, @source)`),
    fillsOf: db.prepare('SELECT * FROM fills WHERE client_id = ? ORDER BY id'),
    quarantine: db.prepare('INSERT OR IGNORE INTO quarantine (ts, client_id, order_id, trade_id, source, reason, data) VALUES (?, ?, ?, ?, ?, ?, ?)'),
    quarantined: db.prepare('SELECT * FROM quarantine ORDER BY id'),
    allFills: db.prepare('SELECT * FROM fills ORDER BY id'),
    balance: db.prepare('INSERT INTO balances (ts, source, asset, free, locked) VALUES (?, ?, ?, ?, ?)'),
    latestBalances: db.prepare(
      'SELECT b.asset, b.free, b.locked FROM balances b JOIN (SELECT asset, MAX(id) AS id FROM balances GROUP BY asset) m ON b.id = m.id ORDER BY b.asset',
    ),
  };
}
