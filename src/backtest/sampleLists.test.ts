import { describe, expect, it } from 'vitest';
import { equityRowsOf } from './sampleLists.js';
import { NumberSpool } from './spool.js';

describe('equityRowsOf', () => {
  it('gives each row its time and the values after it, across chunks, as often as asked', () => {
    const s = new NumberSpool(4, { chunkRows: 3 });
    const rows = Array.from({ length: 10 }, (_, i) => [1000 * i, i * 1.5 - 7, 1 / (i + 1), -i]);
    for (const r of rows) s.push(r);
    const want = rows.map(([t, ...v]) => ({ t, v }));
    expect([...equityRowsOf(s)]).toEqual(want);
    expect([...equityRowsOf(s)]).toEqual(want);
    s.dispose();
  });
});
