import BetterSqlite3 from 'better-sqlite3';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { RunFailure } from './runFailure.js';

describe('RunFailure', () => {
  it('the first error becomes the stop reason (a failed ledger write says so); later ones change nothing', async () => {
    const lines: string[] = [];
    const f = new RunFailure(pino({ level: 'info' }, { write: (s: string) => lines.push(s) }));
    expect(f.reason).toBeUndefined();
    f.report(new BetterSqlite3.SqliteError('database or disk is full', 'SQLITE_FULL'), 'handling an event (executionReport)');
    f.report(new Error('later'), 'a periodic task');
    expect(await f.failed).toBe('ledger write failed: database or disk is full');
    expect(f.reason).toBe('ledger write failed: database or disk is full');
    expect(lines.map((l) => (JSON.parse(l) as { msg: string }).msg)).toEqual(['ledger write failed: database or disk is full: stopping the run', 'failing again while the run stops']);
    const other = new RunFailure(pino({ level: 'silent' }));
    other.report(new TypeError('x is undefined'), 'a periodic task');
    expect(await other.failed).toBe('a periodic task failed: x is undefined');
  });

  it('stops the run even when its log fails as the reported error did (a full disk)', async () => {
    const full = (): never => {
      throw new Error('ENOSPC: no space left on device, write');
    };
    const f = new RunFailure(pino({ level: 'info' }, { write: full }));
    expect(() => f.report(new Error('disk full'), 'an order router task')).not.toThrow();
    expect(() => f.report(new Error('again'), 'a periodic task')).not.toThrow();
    expect(await f.failed).toBe('an order router task failed: disk full');
  });
});
