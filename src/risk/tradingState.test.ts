import { describe, expect, it } from 'vitest';
import type { TradingStateEvent } from '../bus/events.js';
import { TradingStateMachine } from './tradingState.js';

describe('TradingStateMachine', () => {
  it('combines operator, limit and data-health sources, most severe first, and reports changes', () => {
    const seen: TradingStateEvent[] = [];
    const m = new TradingStateMachine({ onChange: (e) => seen.push(e) });
    expect(m.state).toBe('ACTIVE');
    m.setLimitState('REDUCING', 'daily loss limit 100000 IDR reached', 1);
    expect(m.state).toBe('REDUCING');
    m.command('HALTED', 'manual stop', 2);
    expect(m.state).toBe('HALTED');
    expect(m.reason).toBe('operator: manual stop');
    m.command('ACTIVE', 'resume', 3);
    expect(m.state).toBe('REDUCING');
    m.setLimitState('ACTIVE', 'new day', 4);
    expect(seen.map((e) => [e.E, e.state])).toEqual([
      [1, 'REDUCING'],
      [2, 'HALTED'],
      [3, 'REDUCING'],
      [4, 'ACTIVE'],
    ]);
  });

  it('a strategy floor applies to that strategy only, and the most severe state still wins', () => {
    const seen: TradingStateEvent[] = [];
    const m = new TradingStateMachine({ onChange: (e) => seen.push(e) });
    m.commandStrategy('mm', 'HALTED', 'console: halt mm');
    expect(m.stateFor('BTC_IDR', 'mm')).toBe('HALTED');
    expect(m.stateFor('BTC_IDR', 'grid')).toBe('ACTIVE');
    expect(m.stateFor('BTC_IDR')).toBe('ACTIVE');
    expect(m.strategyFloor('mm')).toEqual({ state: 'HALTED', reason: 'operator: console: halt mm' });
    m.commandStrategy('grid', 'REDUCING', 'console');
    m.command('HALTED', 'all', 1);
    expect(m.stateFor('BTC_IDR', 'grid')).toBe('HALTED');
    m.command('ACTIVE', 'resume all', 2);
    expect(m.stateFor('BTC_IDR', 'grid')).toBe('REDUCING');
    m.commandStrategy('mm', 'ACTIVE', 'resume mm');
    expect(m.stateFor('BTC_IDR', 'mm')).toBe('ACTIVE');
    expect(m.strategyFloor('mm').state).toBe('ACTIVE');
    // A strategy's floor is not the run's state: only the global commands were published.
    expect(seen.map((e) => e.state)).toEqual(['HALTED', 'ACTIVE']);
  });

  it('halts everything while a user stream resyncs or a reconcile is pending', () => {
    const m = new TradingStateMachine();
    m.onEvent({ type: 'connection', E: 1, connection: 'market:type1', status: 'down' });
    expect(m.state).toBe('ACTIVE');
    m.onEvent({ type: 'connection', E: 2, connection: 'user:type1', status: 'resyncing', reason: 'reconnect' });
    expect(m.state).toBe('HALTED');
    expect(m.reason).toMatch(/user:type1 resyncing: reconnect/);
    m.onEvent({ type: 'connection', E: 3, connection: 'user:type1', status: 'up' });
    expect(m.state).toBe('ACTIVE');
    m.onEvent({ type: 'reconcileNeeded', E: 4, reason: 'listen token renewal failed' });
    expect(m.state).toBe('HALTED');
    m.reconciled(5);
    expect(m.state).toBe('ACTIVE');
  });

  it('halts only the symbol whose book is resyncing', () => {
    const m = new TradingStateMachine();
    m.onEvent({ type: 'bookStatus', E: 1, symbol: 'BTC_IDR', ready: false, reason: 'gap' });
    expect(m.stateFor('BTC_IDR')).toBe('HALTED');
    expect(m.stateFor('ETH_IDR')).toBe('ACTIVE');
    m.onEvent({ type: 'bookStatus', E: 2, symbol: 'BTC_IDR', ready: true, reason: 'synced' });
    expect(m.stateFor('BTC_IDR')).toBe('ACTIVE');
  });
});
