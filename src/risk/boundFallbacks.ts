/**
 * How often a rule compared exactly (scaled.ts) because its grid bound (boundsCache.ts) was NaN,
 * per rule: the differential test checks that both sides of each bound meet the reference.
 */
export const boundFallbacks = { reduce: 0, percentPrice: 0, notional: 0, priceRange: 0, maxNotional: 0, maxPosition: 0, balance: 0 };
