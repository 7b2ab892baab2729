/**
 * JSON.parse turns integer literals above 2^53 into the nearest double, so a 19-digit order id
 * sent as a number would silently become another id. Before parsing, such literals are turned
 * into strings (outside string literals only), and the parsers keep ids as strings anyway.
 */

const LONG_RUN = /\d{16}/;

/** Quotes every integer literal of 16+ digits that is not a safe integer; other text is unchanged. */
export function quoteUnsafeIntegers(text: string): string {
  if (!LONG_RUN.test(text)) return text;
  let out = '';
  let i = 0;
  let copiedTo = 0;
  const n = text.length;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === 0x22 /* " */) {
      i++;
      while (i < n && text.charCodeAt(i) !== 0x22) i += text.charCodeAt(i) === 0x5c /* \ */ ? 2 : 1;
      i++;
      continue;
    }
    if (c === 0x2d /* - */ || (c >= 0x30 && c <= 0x39)) {
      let j = i + 1;
      while (j < n && /[0-9.eE+-]/.test(text[j] as string)) j++;
      const token = text.slice(i, j);
      if (/^-?\d{16,}$/.test(token) && !Number.isSafeInteger(Number(token))) {
        out += `${text.slice(copiedTo, i)}"${token}"`;
        copiedTo = j;
      }
      i = j;
      continue;
    }
    i++;
  }
  return copiedTo === 0 ? text : out + text.slice(copiedTo);
}
