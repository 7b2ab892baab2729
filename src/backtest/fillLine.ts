/**
 * A fill's report record as its JSON line, written directly: the same text JSON.stringify gives
 * for its ReportFill, without building the record or walking it (a month of minute bars spools
 * 30k fills).
 */
import type { FillEvent } from '../bus/events.js';
import { TextCache } from './textCache.js';

/** Builds the JSON lines of fills (ReportFill's keys in order); remembers the few names' JSON. */
export class FillLines {
  readonly #texts = new TextCache();
  /** JSON strings of the strategy, symbol, side and fee asset names seen: a run has a handful. */
  readonly #names = new Map<string, string>();

  /** JSON.stringify of the fill's ReportFill. */
  line(e: FillEvent): string {
    // toFixed texts are digits, a sign, a dot or a word (NaN, Infinity): nothing JSON escapes.
    const price = this.#texts.text(e.price);
    const qty = this.#texts.text(e.qty);
    const fee = this.#texts.text(e.commission);
    const asset = e.commissionAsset === null ? 'null' : this.#json(e.commissionAsset);
    // JSON writes a number that is not finite as null; String(-0) is "0" as in JSON.
    const t = Number.isFinite(e.E) ? String(e.E) : 'null';
    return `{"t":${t},"strategy":${this.#json(e.strategy)},"symbol":${this.#json(e.symbol)},"side":${this.#json(e.side)},"price":"${price}","qty":"${qty}","fee":"${fee}","feeAsset":${asset},"maker":${e.isMaker ? 'true' : 'false'}}`;
  }

  #json(s: string): string {
    let j = this.#names.get(s);
    if (j === undefined) {
      j = JSON.stringify(s);
      if (this.#names.size < 1024) this.#names.set(s, j);
    }
    return j;
  }
}
