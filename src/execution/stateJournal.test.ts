import { describe, expect, it } from 'vitest';
import { Ledger } from '../store/Ledger.js';
import { TradingStateMachine } from '../risk/tradingState.js';
import { TradingStateJournal } from './stateJournal.js';

/** The tradingState rows of a ledger, oldest first. */
function rows(ledger: Ledger): unknown[] {
  return ledger.journalEntries('tradingState').map((e) => e.data);
}

describe('TradingStateJournal', () => {
  it("journals the machine's halts (a user stream down, an unreachable exchange) and, when each ends, its duration and cause", () => {
    const ledger = Ledger.open(':memory:');
    const j = new TradingStateJournal(ledger);
    const m = new TradingStateMachine({ onChange: (e) => j.record(e) });
    m.onEvent({ type: 'connection', E: 1_000, connection: 'user:type1', status: 'down', reason: 'socket closed' });
    m.onEvent({ type: 'reconcileNeeded', E: 20_000, reason: 'user stream reconnected' });
    m.onEvent({ type: 'connection', E: 20_000, connection: 'user:type1', status: 'up' });
    m.reconciled(27_000);
    m.setExchangeUnreachable('exchange unreachable: no stream message for 15 s', 40_000);
    m.setExchangeUnreachable(undefined, 61_000);
    expect(rows(ledger)).toEqual([
      { state: 'HALTED', reason: 'user stream resyncing: user:type1 down: socket closed' },
      { state: 'ACTIVE', reason: 'active', haltedMs: 26_000, haltReason: 'user stream resyncing: user:type1 down: socket closed' },
      { state: 'HALTED', reason: 'exchange unreachable: no stream message for 15 s' },
      { state: 'ACTIVE', reason: 'active', haltedMs: 21_000, haltReason: 'exchange unreachable: no stream message for 15 s' },
    ]);
    ledger.close();
  });
});
