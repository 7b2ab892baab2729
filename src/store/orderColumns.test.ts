import { describe, expect, it } from 'vitest';
import { Decimal } from '../core/decimal.js';
import { addSecretValues, REDACTED } from '../core/secretScrub.js';
import type { OrderRecord } from './records.js';
import { testOrder } from './testOrder.js';
import { asStored, changedColumns, orderParams, patchedOrder, UPDATE_COLUMNS, type OrderPatch } from './orderColumns.js';

const SECRET = 'S3cretKeyValue';
addSecretValues([SECRET]);

const base = testOrder('c1');

/** The record and the changed columns as written before: a spread of the defined fields, both rows' parameters compared. */
function reference(before: OrderRecord, patch: OrderPatch, ts: number): { after: OrderRecord; columns: string[] } {
  const defined = Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined));
  const after = { ...before, ...defined, updatedAt: ts } as OrderRecord;
  const a = orderParams(before);
  const b = orderParams(after);
  return { after, columns: UPDATE_COLUMNS.map((c) => c.column).filter((c) => c === 'updated_at' || a[c] !== b[c]) };
}

const columnsOf = (mask: number): string[] => UPDATE_COLUMNS.filter((_, i) => (mask & (1 << i)) !== 0).map((c) => c.column);

describe('patchedOrder and changedColumns', () => {
  const patches: OrderPatch[] = [
    {},
    { sentAt: 5, venue: 'open' },
    { venue: 'legacy' },
    { orderId: '42', state: 'NEW' },
    { state: 'EXPIRED', reason: `refused: ${SECRET}` },
    { cumQty: new Decimal('1.000'), cumQuoteQty: new Decimal('100.5') },
    { cumQty: new Decimal('0.00') },
    { state: 'FILLED', cumQty: undefined, reason: undefined },
  ];
  const befores: OrderRecord[] = [base, { ...base, orderId: '42', state: 'NEW', sentAt: 3, reason: `key ${SECRET} refused` }, { ...base, cumQty: new Decimal('1'), cumQuoteQty: new Decimal('100.5') }];

  it('give the record and the columns that a spread of the defined fields and both rows compared gave', () => {
    for (const b of befores) {
      for (const p of patches) {
        const want = reference(b, p, 9);
        const after = patchedOrder(b, p, 9);
        expect(after).toStrictEqual(want.after);
        expect(columnsOf(changedColumns(b, after))).toEqual(want.columns);
      }
    }
  });

  it('build every record with the same keys in the same order', () => {
    expect(Object.keys(patchedOrder(base, { state: 'NEW' }, 2))).toEqual(Object.keys(base));
    expect(Object.keys(asStored({ ...base, reason: 'x' }))).toEqual(Object.keys(base));
  });

  it('hold a reason as the row does, scrubbed', () => {
    const stored = asStored({ ...base, reason: `rejected: ${SECRET}` });
    expect(stored.reason).toBe(`rejected: ${REDACTED}`);
    expect(asStored(base)).toStrictEqual(base);
  });
});
