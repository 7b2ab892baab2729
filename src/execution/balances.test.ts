import { describe, expect, it } from 'vitest';
import { Decimal, ZERO } from '../core/decimal.js';
import { Ledger } from '../store/Ledger.js';
import { LiveBalances } from './balances.js';
import { equityIn } from './equity.js';

const b = (asset: string, free: string, locked = '0') => ({ asset, free: new Decimal(free), locked: new Decimal(locked) });

describe('LiveBalances', () => {
  it('records each asset when it changes, whatever the source; a stream update touches only its assets; unchanged snapshots add no rows', () => {
    const ledger = Ledger.open(':memory:');
    let now = 1;
    const l = new LiveBalances(ledger, () => now);
    l.update('rest', [b('BTC', '5'), b('USDT', '500000')], true);
    now = 2;
    l.update('stream', [b('USDT', '499593', '123.6')], false);
    now = 3;
    l.update('stream', [b('BTC', '5.0025', '0.002')], false);
    l.update('rest', [b('BTC', '5.0025', '0.002'), b('USDT', '499593', '123.6')], true);
    expect(ledger.count('balances')).toBe(4);
    expect(l.list().map((x) => `${x.asset} ${x.free.toFixed()} ${x.locked.toFixed()}`)).toEqual(['BTC 5.0025 0.002', 'USDT 499593 123.6']);
    expect(ledger.latestBalances().map((x) => `${x.asset} ${x.free.toFixed()} ${x.locked.toFixed()}`)).toEqual(['BTC 5.0025 0.002', 'USDT 499593 123.6']);
    // A whole-account read without an asset means it is gone.
    l.update('rest', [b('USDT', '499593', '123.6')], true);
    expect(l.list().map((x) => x.asset)).toEqual(['USDT']);
    expect(ledger.latestBalances().find((x) => x.asset === 'BTC')?.free.isZero()).toBe(true);
    ledger.close();
  });
});

describe('equityIn', () => {
  it('values free plus locked in one quote asset at the given prices, and lists what it cannot price', () => {
    const e = equityIn('USDT', [b('BTC', '5.0025', '0.002'), b('USDT', '499593', '123.6'), b('XRP', '10'), { asset: 'ETH', free: ZERO, locked: ZERO }], (a) => (a === 'BTC' ? new Decimal('60000.5') : undefined));
    expect(e.value.toFixed()).toBe(new Decimal('5.0045').mul('60000.5').plus('499716.6').toFixed());
    expect(e.unvalued).toEqual(['XRP']);
    expect(Object.keys(e.prices)).toEqual(['BTC', 'USDT']);
  });
});
