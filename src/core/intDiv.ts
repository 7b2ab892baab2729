/**
 * Exact integer division for scaled-integer code (prices in ticks, quantities in steps): a double
 * division can round across an integer, so these take a remainder and divide what leaves none.
 */

const MAX_SAFE = Number.MAX_SAFE_INTEGER;

/** floor(n / d), or its ceiling when `up`, for safe integers n and d > 0. */
export function divRound(n: number, d: number, up: boolean): number {
  const r = n % d;
  const q = (n - r) / d;
  return up ? (r > 0 ? q + 1 : q) : r < 0 ? q - 1 : q;
}

/**
 * floor(a x b / d), or its ceiling when `up`, for safe integers a, b and d > 0, exact at any size:
 * the product is taken in bigint when it leaves the safe integers. NaN when an argument is not a
 * safe integer or the result is not one.
 */
export function mulDivRound(a: number, b: number, d: number, up: boolean): number {
  if (!(Number.isSafeInteger(a) && Number.isSafeInteger(b) && Number.isSafeInteger(d) && d > 0)) return NaN;
  const n = a * b;
  // A true product past 2^53 never comes out below it as a double, so this one is exact.
  if (Math.abs(n) <= MAX_SAFE) return divRound(n, d, up);
  const nb = BigInt(a) * BigInt(b);
  const db = BigInt(d);
  const r = nb % db;
  let q = nb / db;
  if (up ? r > 0n : r < 0n) q += up ? 1n : -1n;
  return q >= -BigInt(MAX_SAFE) && q <= BigInt(MAX_SAFE) ? Number(q) : NaN;
}
