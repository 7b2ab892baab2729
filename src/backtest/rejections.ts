/**
 * Refused orders of a run counted by strategy and reason: the risk checker's rejections of intents
 * (LOT_SIZE, NOTIONAL, MAX_POSITION...) and the venue's rejected orders. A count alone says that
 * something is wrong; the reason, with one of its messages, says what to fix.
 */

/** How many intents or orders of one strategy were refused for one reason. */
export interface RejectionCount {
  /** `risk`: the risk checker refused the intent before the venue; `venue`: the venue rejected the order. */
  readonly source: 'risk' | 'venue';
  readonly reason: string;
  readonly count: number;
  /** The message of the first one (what was refused, and the bound). */
  readonly example: string;
}

/** The counts, kept per strategy. */
export class Rejections {
  readonly #by = new Map<string, Map<string, { source: 'risk' | 'venue'; reason: string; count: number; example: string }>>();

  /** Counts one refusal. */
  add(strategy: string, source: 'risk' | 'venue', reason: string, message: string): void {
    let m = this.#by.get(strategy);
    if (m === undefined) this.#by.set(strategy, (m = new Map()));
    const key = `${source}\u0000${reason}`;
    const c = m.get(key);
    if (c === undefined) m.set(key, { source, reason, count: 1, example: message });
    else c.count++;
  }

  /** Refusals of a strategy from one source. */
  count(strategy: string, source: 'risk' | 'venue'): number {
    let n = 0;
    for (const c of this.#by.get(strategy)?.values() ?? []) if (c.source === source) n += c.count;
    return n;
  }

  /** A strategy's counts, most frequent first (then by source and reason: a fixed order). */
  of(strategy: string): RejectionCount[] {
    return [...(this.#by.get(strategy)?.values() ?? [])]
      .map((c) => ({ ...c }))
      .sort((a, b) => b.count - a.count || (a.source < b.source ? -1 : a.source > b.source ? 1 : a.reason < b.reason ? -1 : a.reason > b.reason ? 1 : 0));
  }
}

/** `LOT_SIZE 66, NOTIONAL 2` (risk and venue alike), or `none`. */
export function rejectionsText(counts: readonly RejectionCount[]): string {
  return counts.length === 0 ? 'none' : counts.map((c) => `${c.source === 'venue' ? 'venue ' : ''}${c.reason} ${c.count}`).join(', ');
}

/**
 * The code of a venue's reason text `CODE: message` (the simulated venue's form, e.g.
 * `LIMIT_MAKER_WOULD_TAKE: LIMIT_MAKER price ... would trade`), else the text itself: refusals are
 * counted by what went wrong, not once per price in the message.
 */
export function reasonCode(text: string): string {
  const i = text.indexOf(': ');
  return i > 0 && /^[A-Z][A-Z0-9_]*$/.test(text.slice(0, i)) ? text.slice(0, i) : text;
}
