/**
 * Writes a value as `JSON.stringify(value, null, 2)` plus a newline, byte for byte, without
 * building that text whole: the elements of the value's top-level arrays (a day's equity samples
 * and fills: tens of MB as one string) are written a batch at a time, and lists given apart (a
 * result's spooled lists, see resultStreams.ts) are read one element at a time, so writing a
 * result costs memory in proportion to a batch, not to the run.
 */
import { closeSync, openSync, writeSync } from 'node:fs';

/** Elements formatted per write. */
const BATCH = 2048;

/**
 * A top-level field's value given as a list read in order (`items`), or as an object of such lists
 * (`groups`, in key order): written where the field's own value would be, which is not read.
 */
export type ListSource = { readonly items: () => Iterable<unknown> } | { readonly groups: readonly (readonly [string, () => Iterable<unknown>])[] };

/** `text` with every line after the first indented by `pad`. */
function indent(text: string, pad: string): string {
  return text.includes('\n') ? text.replace(/\n/g, `\n${pad}`) : text;
}

/**
 * Writes the elements of `items` as a JSON array at indentation `pad` (its elements one level
 * deeper). A batch of elements is formatted by one JSON.stringify of an array of them, whose text
 * between its brackets is the batch's elements as this array holds them once every line is
 * indented by `pad` (an element that JSON has no text for is null in an array, as here). Why: one
 * stringify and one indenting pass a batch, not one of each an element (a day's result.json:
 * ~40 % less CPU to format its equity samples, fills and round trips).
 */
function putArray(put: (s: string) => void, items: Iterable<unknown>, pad: string): void {
  const nl = `\n${pad}`;
  let batch: unknown[] = [];
  let n = 0;
  const flush = (): void => {
    const text = JSON.stringify(batch, null, 2);
    // "[\n  a,\n  b\n]": the elements are what lies between "[" and "\n]".
    put(`${n === batch.length ? '[' : ','}${text.slice(1, -2).replace(/\n/g, nl)}`);
    batch = [];
  };
  for (const el of items) {
    batch.push(el);
    n++;
    if (batch.length === BATCH) flush();
  }
  if (batch.length > 0) flush();
  put(n === 0 ? '[]' : `${nl}]`);
}

/** Writes `JSON.stringify(value, null, 2)` and a newline to `file`, with `lists` read in place of those fields. */
export function writeJsonFile(file: string, value: unknown, lists: Readonly<Record<string, ListSource>> = {}): void {
  const fd = openSync(file, 'w');
  try {
    const put = (s: string): void => void writeSync(fd, s);
    if (typeof value !== 'object' || value === null || Array.isArray(value) || typeof (value as { toJSON?: unknown }).toJSON === 'function') {
      put(`${JSON.stringify(value, null, 2)}\n`);
      return;
    }
    // Keys first: a listed field's own value (a getter that would build the list) is never read.
    const rec = value as Record<string, unknown>;
    const listed = (k: string): ListSource | undefined => (Object.hasOwn(lists, k) ? lists[k] : undefined);
    const keys = Object.keys(rec).filter((k) => listed(k) !== undefined || (rec[k] !== undefined && typeof rec[k] !== 'function' && typeof rec[k] !== 'symbol'));
    if (keys.length === 0) {
      put('{}\n');
      return;
    }
    put('{');
    keys.forEach((k, i) => {
      put(`${i === 0 ? '' : ','}\n  ${JSON.stringify(k)}: `);
      const list = listed(k);
      if (list !== undefined) {
        if ('items' in list) putArray(put, list.items(), '  ');
        else if (list.groups.length === 0) put('{}');
        else {
          put('{');
          list.groups.forEach(([g, items], j) => {
            put(`${j === 0 ? '' : ','}\n    ${JSON.stringify(g)}: `);
            putArray(put, items(), '    ');
          });
          put('\n  }');
        }
        return;
      }
      const v = rec[k];
      if (!Array.isArray(v) || v.length === 0) put(indent(JSON.stringify(v, null, 2), '  '));
      else putArray(put, v, '  ');
    });
    put('\n}\n');
  } finally {
    closeSync(fd);
  }
}
