// Step of `npm run build`, after each esbuild output (the vendored bundles, the bundle of the
// compiled modules): makes the files ASCII-only. esbuild escapes every non-ASCII character of
// the code it writes, but copies the comments it keeps as they are (a dash or a "±" in a
// comment). One such character makes Node read the whole file as a two-byte string, decoded
// from UTF-8 (zod's 766 KB bundle: ~2 ms at every start against ~0.5 ms as one byte a
// character), and V8 then scans that source two bytes a character. The characters are written
// as `\u{…}` text in their comments; the build checks that nothing else changed (the file
// minified without its comments is the same before and after) and refuses a file where it did.
import { readFileSync, writeFileSync } from 'node:fs';

const NON_ASCII = /[^\u0000-\u007f]/u;
const NON_ASCII_ALL = /[^\u0000-\u007f]/gu;

/** `text` with every non-ASCII code point written as `\u{hex}`. */
export function asciiText(text) {
  return text.replace(NON_ASCII_ALL, (c) => `\\u{${c.codePointAt(0).toString(16)}}`);
}

/**
 * Rewrites the non-ASCII characters of each JavaScript file in `files` (in its comments, as
 * esbuild leaves them); returns the files changed. Throws, naming the file, when the rewrite
 * changed more than comments.
 */
export async function asciiOutputs(files) {
  const { transform } = await import('esbuild');
  const code = async (text, file) => (await transform(text, { minifyWhitespace: true, legalComments: 'none', sourcefile: file, loader: 'js', logLevel: 'silent' })).code;
  const changed = [];
  for (const file of files) {
    const text = readFileSync(file, 'utf8');
    if (!NON_ASCII.test(text)) continue;
    const ascii = asciiText(text);
    if ((await code(text, file)) !== (await code(ascii, file))) throw new Error(`${file}: a non-ASCII character outside a comment (esbuild escapes those in code); not rewritten`);
    writeFileSync(file, ascii);
    changed.push(file);
  }
  return changed;
}
