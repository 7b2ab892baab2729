import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { addSecretValues } from '../core/secretScrub.js';
import { Ledger } from './Ledger.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('ledger free text', () => {
  it('keeps no registered secret value in any row it writes', () => {
    const secret = 'ledgerSecret-7f3a9c21e4b8';
    addSecretValues([secret]);
    const dir = mkdtempSync(join(tmpdir(), 'kancil-ledger-secrets-'));
    dirs.push(dir);
    const path = join(dir, 'l.db');
    const ledger = Ledger.open(path);
    ledger.journal(1, 'strategyFailed', { strategy: 's', err: `boom ${secret}` });
    ledger.recordRiskDecision(2, { intentId: 'i1', accepted: false, reason: 'MAX_ORDER_NOTIONAL', message: `refused, key ${secret}`, adjusted: false });
    ledger.quarantineOrder(3, 'c1', 'o1', 'rest', `exchange said ${secret}`, { raw: secret });
    expect(ledger.quarantined()[0]?.reason).toBe('exchange said [redacted]');
    ledger.close();
    const bytes = readdirSync(dir)
      .map((f) => readFileSync(join(dir, f)).toString('latin1'))
      .join('');
    expect(bytes).toContain('[redacted]');
    expect(bytes).not.toContain(secret);
  });
});
