/**
 * The account's balances as the run knows them now, from every source: the account stream
 * (outboundAccountPosition, which lists the assets that changed), each REST account read (start-up,
 * every reconciliation, the periodic refresh; the whole account), and on paper the matching
 * engine's account. Each asset whose free or locked amount changed is written to the ledger's
 * `balances` table with its source, so `kancil status` and the console read the same figures and a
 * month of unchanged balances adds no rows. Before this, balances were recorded at start-up only:
 * the dashboard showed 5 BTC and nothing locked while the exchange had 5.0025 + 0.002 locked.
 */
import { ZERO } from '../core/decimal.js';
import type { Balance } from '../core/types.js';
import type { Ledger } from '../store/Ledger.js';

/** Where a balance snapshot came from (the ledger's `source` column). */
export const BalanceSource = { REST: 'rest', STREAM: 'stream', SIM: 'sim' } as const;
/** One of BalanceSource. */
export type BalanceSourceName = (typeof BalanceSource)[keyof typeof BalanceSource];

/** Current balances by asset, recorded to the ledger when they change. */
export class LiveBalances {
  readonly #ledger: Ledger;
  readonly #now: () => number;
  readonly #by = new Map<string, Balance>();
  #updatedAt: number | undefined;

  constructor(ledger: Ledger, now: () => number) {
    this.#ledger = ledger;
    this.#now = now;
  }

  /**
   * Applies a snapshot. `whole`: it lists the whole account (a REST read, the simulator), so an
   * asset it leaves out is now zero; otherwise (the stream) only the listed assets changed.
   */
  update(source: BalanceSourceName, balances: readonly Balance[], whole: boolean): void {
    const changed: Balance[] = [];
    const listed = new Set<string>();
    for (const b of balances) {
      listed.add(b.asset);
      const cur = this.#by.get(b.asset);
      if (cur === undefined || !cur.free.eq(b.free) || !cur.locked.eq(b.locked)) changed.push(b);
    }
    if (whole) for (const [asset, cur] of this.#by) if (!listed.has(asset) && !(cur.free.isZero() && cur.locked.isZero())) changed.push({ asset, free: ZERO, locked: ZERO });
    const now = this.#now();
    this.#updatedAt = now;
    if (changed.length === 0) return;
    // Ledger first: what the console shows is never ahead of what a restart would read.
    this.#ledger.recordBalances(now, source, changed);
    for (const b of changed) this.#by.set(b.asset, b);
  }

  /** Every asset with a non-zero balance, by name. */
  list(): Balance[] {
    return [...this.#by.values()].filter((b) => !(b.free.isZero() && b.locked.isZero())).sort((a, b) => (a.asset < b.asset ? -1 : a.asset > b.asset ? 1 : 0));
  }

  /** When a snapshot last arrived (undefined: none yet). */
  get updatedAt(): number | undefined {
    return this.#updatedAt;
  }
}
