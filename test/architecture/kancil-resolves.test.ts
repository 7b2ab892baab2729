/**
 * Inside this repository `kancil` is the TypeScript sources (package.json's `kancil-source`
 * condition, set in vitest.config.ts): a test of a strategy never runs a stale dist/, and the
 * classes it gets from `kancil` are the ones the code under test uses.
 */
import { describe, expect, it } from 'vitest';
import * as pub from 'kancil';
import * as indicators from 'kancil/indicators';
import * as testing from 'kancil/testing';
import * as src from '../../src/index.js';
import * as srcIndicators from '../../src/indicators.js';
import * as srcTesting from '../../src/testing.js';

describe('kancil under vitest', () => {
  it('resolves kancil, kancil/testing and kancil/indicators to the sources (one copy of each class)', () => {
    expect(pub.Decimal).toBe(src.Decimal);
    expect(pub.defineStrategy).toBe(src.defineStrategy);
    expect(testing.fakeContext).toBe(srcTesting.fakeContext);
    expect(indicators.fromBars).toBe(srcIndicators.fromBars);
  });
});
