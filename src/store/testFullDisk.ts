/**
 * Test fixture: a ledger file whose writes fail as on a full disk, through the ledger's own code
 * (a stub replacing a method would skip what the ledger does on a failure). Another connection
 * adds triggers that abort every insert and update with SQLite's full-disk message.
 */
import BetterSqlite3 from 'better-sqlite3';

const TABLES = ['intents', 'risk_decisions', 'orders', 'order_transitions', 'fills', 'balances', 'journal', 'quarantine'] as const;

/** Makes every write to the ledger at `path` fail until the returned function is called. */
export function fillDisk(path: string): () => void {
  const db = new BetterSqlite3(path);
  const names: string[] = [];
  for (const t of TABLES) {
    for (const op of ['INSERT', 'UPDATE']) {
      const name = `full_${t}_${op.toLowerCase()}`;
      db.exec(`CREATE TRIGGER ${name} BEFORE ${op} ON ${t} BEGIN SELECT RAISE(ABORT, 'database or disk is full'); END`);
      names.push(name);
    }
  }
  return () => {
    for (const n of names) db.exec(`DROP TRIGGER ${n}`);
    db.close();
  };
}
