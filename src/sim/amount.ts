/**
 * Exact integer amounts (balances, locks, cumulative quote) held as `big + num`: a bigint part and
 * a safe-integer number part. Hot-path updates add safe-integer deltas to the number part with
 * plain double arithmetic, which is exact while the sum stays within ±(2^53 - 1); a sum outside
 * that range (the computed one is then at least 2^53 too, rounding being monotonic) folds both into
 * the bigint part instead. So a 10^23 balance still takes number-only updates: its size sits in
 * `big`, the day's movements in `num`. Reading the whole value as a bigint allocates and is for
 * the slower paths (views, events, rare rules).
 */
import { fmt, fmtBig, MAX_SAFE } from './scaled.js';

const MAX_SAFE_N = BigInt(MAX_SAFE);

/** num + d when that is a safe integer, else NaN (the caller folds into its bigint part). */
export function addSafe(num: number, d: number): number {
  const n = num + d;
  return n <= MAX_SAFE && n >= -MAX_SAFE ? n : NaN;
}

/** |big| beyond this decides a comparison with a safe integer alone (|num| and the other side stay below 2^53). */
const DECIDES = 2n ** 54n;

/** a.big + a.num < x, exactly, for a safe integer x. */
export function below(big: bigint, num: number, x: number): boolean {
  if (big === 0n) return num < x;
  if (big > DECIDES) return false;
  if (big < -DECIDES) return true;
  return big + BigInt(num) < BigInt(x);
}

/** The whole value as a bigint. */
export function whole(big: bigint, num: number): bigint {
  return num === 0 ? big : big + BigInt(num);
}

/** A balance at the asset's scale: free and locked, each `big + num` (see above). */
export class Bal {
  private fB = 0n;
  private fN = 0;
  private lB = 0n;
  private lN = 0;

  // A value set whole goes to the number part when it is a safe integer, so most balances never
  // touch their bigint part: reads and texts of them stay number-only.
  get free(): bigint {
    return whole(this.fB, this.fN);
  }
  set free(v: bigint) {
    const safe = v <= MAX_SAFE_N && v >= -MAX_SAFE_N;
    this.fB = safe ? 0n : v;
    this.fN = safe ? Number(v) : 0;
  }
  get locked(): bigint {
    return whole(this.lB, this.lN);
  }
  set locked(v: bigint) {
    const safe = v <= MAX_SAFE_N && v >= -MAX_SAFE_N;
    this.lB = safe ? 0n : v;
    this.lN = safe ? Number(v) : 0;
  }

  /** free as canonical decimal text at `scale` (the asset's), without a bigint when it has no bigint part. */
  freeText(scale: number): string {
    return this.fB === 0n ? fmt(this.fN, scale) : fmtBig(whole(this.fB, this.fN), scale);
  }

  /** locked as canonical decimal text at `scale` (the asset's), without a bigint when it has no bigint part. */
  lockedText(scale: number): string {
    return this.lB === 0n ? fmt(this.lN, scale) : fmtBig(whole(this.lB, this.lN), scale);
  }

  /** free += d for a safe integer d. */
  addFree(d: number): void {
    const n = addSafe(this.fN, d);
    if (n === n) this.fN = n;
    else this.free = this.free + BigInt(d);
  }

  /** locked += d for a safe integer d. */
  addLocked(d: number): void {
    const n = addSafe(this.lN, d);
    if (n === n) this.lN = n;
    else this.locked = this.locked + BigInt(d);
  }

  /** free < x, exactly, for a safe integer x. */
  freeBelow(x: number): boolean {
    return below(this.fB, this.fN, x);
  }
}
