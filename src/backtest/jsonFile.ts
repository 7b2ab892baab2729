/**
 * Writes a value as `JSON.stringify(value, null, 2)` plus a newline, byte for byte, without
 * building that text whole: the elements of the value's top-level arrays (a day's equity samples
 * and fills: tens of MB as one string) are written a batch at a time, so writing a result costs
 * memory in proportion to a batch, not to the run.
 */
import { closeSync, openSync, writeSync } from 'node:fs';

/** Elements formatted per write. */
const BATCH = 2048;

/** `text` with every line after the first indented by `pad`. */
function indent(text: string, pad: string): string {
  return text.includes('\n') ? text.replace(/\n/g, `\n${pad}`) : text;
}

/** Writes `JSON.stringify(value, null, 2)` and a newline to `file`. */
export function writeJsonFile(file: string, value: unknown): void {
  const fd = openSync(file, 'w');
  try {
    const put = (s: string): void => void writeSync(fd, s);
    if (typeof value !== 'object' || value === null || Array.isArray(value) || typeof (value as { toJSON?: unknown }).toJSON === 'function') {
      put(`${JSON.stringify(value, null, 2)}\n`);
      return;
    }
    const entries = Object.entries(value).filter(([, v]) => v !== undefined && typeof v !== 'function' && typeof v !== 'symbol');
    if (entries.length === 0) {
      put('{}\n');
      return;
    }
    put('{');
    entries.forEach(([k, v], i) => {
      put(`${i === 0 ? '' : ','}\n  ${JSON.stringify(k)}: `);
      if (!Array.isArray(v) || v.length === 0) {
        put(indent(JSON.stringify(v, null, 2), '  '));
        return;
      }
      put('[');
      for (let from = 0; from < v.length; from += BATCH) {
        let chunk = '';
        for (let j = from; j < Math.min(v.length, from + BATCH); j++) {
          const el: unknown = v[j];
          const text = el === undefined || typeof el === 'function' || typeof el === 'symbol' ? 'null' : JSON.stringify(el, null, 2);
          chunk += `${j === 0 ? '' : ','}\n    ${indent(text, '    ')}`;
        }
        put(chunk);
      }
      put('\n  ]');
    });
    put('\n}\n');
  } finally {
    closeSync(fd);
  }
}
