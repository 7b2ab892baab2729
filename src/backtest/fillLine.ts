/**
 * A fill's report record as its JSON line, written directly: the same text JSON.stringify gives
 * for its ReportFill, without building the record or walking it (a month of minute bars spools
 * 30k fills); and read back without JSON.parse when its names need no escapes.
 */
import type { FillEvent } from '../bus/events.js';
import { JsonNames, jsonNumber } from './jsonNames.js';
import type { ReportFill } from './result.js';
import { TextCache } from './textCache.js';

/** Builds the JSON lines of fills (ReportFill's keys in order); remembers the few names' JSON. */
export class FillLines {
  readonly #texts = new TextCache();
  /** JSON strings of the strategy, symbol, side and fee asset names seen: a run has a handful. */
  readonly #names = new JsonNames();

  /** JSON.stringify of the fill's ReportFill. */
  line(e: FillEvent): string {
    // toFixed texts are digits, a sign, a dot or a word (NaN, Infinity): nothing JSON escapes.
    const price = this.#texts.text(e.price);
    const qty = this.#texts.text(e.qty);
    const fee = this.#texts.text(e.commission);
    const n = this.#names;
    const asset = e.commissionAsset === null ? 'null' : n.json(e.commissionAsset);
    return `{"t":${jsonNumber(e.E)},"strategy":${n.json(e.strategy)},"symbol":${n.json(e.symbol)},"side":${n.json(e.side)},"price":"${price}","qty":"${qty}","fee":"${fee}","feeAsset":${asset},"maker":${e.isMaker ? 'true' : 'false'}}`;
  }
}

/**
 * JSON.parse of a line {@link FillLines} wrote, read field by field: a line without a backslash
 * has no escapes, so each string ends at the next quote. Any other line goes to JSON.parse.
 */
export function parseFillLine(line: string): ReportFill {
  if (line.includes('\\') || !line.startsWith('{"t":')) return JSON.parse(line) as ReportFill;
  const r = new FieldReader(line, 5);
  const tText = r.until(',');
  const strategy = r.str(',"strategy":"');
  const symbol = r.str(',"symbol":"');
  const side = r.str(',"side":"');
  const price = r.str(',"price":"');
  const qty = r.str(',"qty":"');
  const fee = r.str(',"fee":"');
  const feeAsset = r.nullOrStr(',"feeAsset":');
  const maker = r.until('}', ',"maker":');
  if (!r.ok || r.pos !== line.length - 1 || (maker !== 'true' && maker !== 'false')) return JSON.parse(line) as ReportFill;
  const t = tText === 'null' ? null : Number(tText);
  return { t: t as number, strategy, symbol, side: side as ReportFill['side'], price, qty, fee, feeAsset, maker: maker === 'true' };
}

/** A cursor over a line without escapes; `ok` turns false at the first key not where expected. */
class FieldReader {
  ok = true;
  constructor(
    readonly line: string,
    public pos: number,
  ) {}

  /** The text from after `key` up to `end` (the cursor stops at `end`). */
  until(end: string, key = ''): string {
    if (key !== '') this.#key(key);
    const to = this.line.indexOf(end, this.pos);
    if (to < 0 || !this.ok) {
      this.ok = false;
      return '';
    }
    const s = this.line.slice(this.pos, to);
    this.pos = to;
    return s;
  }

  /** A quoted string after `key` (which ends with its opening quote). */
  str(key: string): string {
    const s = this.until('"', key);
    this.pos++;
    return s;
  }

  /** `null` or a quoted string after `key`. */
  nullOrStr(key: string): string | null {
    this.#key(key);
    if (this.line.startsWith('null', this.pos)) {
      this.pos += 4;
      return null;
    }
    return this.str('"');
  }

  #key(key: string): void {
    if (this.ok && this.line.startsWith(key, this.pos)) this.pos += key.length;
    else this.ok = false;
  }
}
