/**
 * The build's outputs are ASCII-only (bin/ascii-output.mjs): Node reads a file with one non-ASCII
 * character as a two-byte string, decoded from UTF-8, and esbuild copies the comments it keeps
 * as they are. The rewrite touches comments only and refuses a file where it would change more.
 */
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT, builtIsFresh } from './builtFresh.js';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'kancil-ascii-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

interface AsciiOutput {
  asciiOutputs(files: readonly string[]): Promise<string[]>;
}
const helper = async (): Promise<AsciiOutput> => (await import(pathToFileURL(path.join(ROOT, 'bin/ascii-output.mjs')).href)) as AsciiOutput;
const nonAscii = (text: string): boolean => [...text].some((c) => (c.codePointAt(0) as number) > 0x7f);

describe('ASCII-only build outputs', () => {
  it('rewrites the non-ASCII characters of comments and leaves the code as it was', async () => {
    const { asciiOutputs } = await helper();
    const file = path.join(tmp, 'commented.mjs');
    writeFileSync(file, '// ids first .. first + dead \u2212 1\nexport const s = "\\u2212";\n/* \u00b1Infinity, \u{1f600} */\nexport const n = 1;\n');
    const plain = path.join(tmp, 'plain.mjs');
    writeFileSync(plain, 'export const n = 2;\n');
    expect(await asciiOutputs([file, plain])).toEqual([file]);
    const text = readFileSync(file, 'utf8');
    expect(nonAscii(text)).toBe(false);
    expect(text).toContain('dead \\u{2212} 1');
    expect(text).toContain('\\u{b1}Infinity, \\u{1f600}');
    const m = (await import(pathToFileURL(file).href)) as { s: string; n: number };
    expect([m.s, m.n]).toEqual(['\u2212', 1]);
    expect(readFileSync(plain, 'utf8')).toBe('export const n = 2;\n');
  });

  it('refuses a file whose code holds a non-ASCII character, naming it, and leaves it unchanged', async () => {
    const { asciiOutputs } = await helper();
    const file = path.join(tmp, 'regex.mjs');
    const text = 'export const r = /a\u2212b/;\n';
    writeFileSync(file, text);
    await expect(asciiOutputs([file])).rejects.toThrow(`${file}: a non-ASCII character outside a comment`);
    expect(readFileSync(file, 'utf8')).toBe(text);
  });

  it.skipIf(!builtIsFresh())('the bundle and the vendored bundles are ASCII-only (needs a fresh `npm run build`)', () => {
    const files = ['dist/src/bundle', 'dist/vendor'].flatMap((d) => readdirSync(path.join(ROOT, d)).filter((f) => /\.c?js$/.test(f)).map((f) => path.join(ROOT, d, f)));
    expect(files.length).toBeGreaterThan(10);
    expect(files.filter((f) => nonAscii(readFileSync(f, 'utf8')))).toEqual([]);
  });
});
