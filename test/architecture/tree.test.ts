/**
 * House rules of the tree that a reviewer would otherwise have to catch: source files stay under
 * 500 lines (one job each), and nothing in code or docs names an issue number or a working
 * session (measurements belong in docs/performance.md and commit bodies, reasons in a few lines of comment).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const MAX_LINES = 500;

/** Files over the limit while they are being split; an entry that no longer applies is unused (delete it then). */
const KNOWN_LONG: readonly string[] = [];

/** Phrases that name a working session or an issue ("this session", "session 5", "issue 16", "issue #3"). */
const BANNED: readonly RegExp[] = [/\bthis session\b/i, /\bsession \d+\b/i, /\bissues? #?\d+\b/i];

/** Every file under `dir` (repository-relative) whose name ends with one of `exts`. */
function filesUnder(dir: string, exts: readonly string[]): string[] {
  const out: string[] = [];
  const walk = (rel: string): void => {
    for (const e of readdirSync(path.join(root, rel), { withFileTypes: true })) {
      const r = `${rel}/${e.name}`;
      if (e.isDirectory()) {
        if (e.name !== 'node_modules' && !e.name.startsWith('.')) walk(r);
      } else if (exts.some((x) => e.name.endsWith(x))) out.push(r);
    }
  };
  walk(dir);
  return out;
}

/** The lines of `text` that match a banned phrase, as `file:line: text`. */
function bannedLines(file: string, text: string): string[] {
  const hits: string[] = [];
  text.split('\n').forEach((line, i) => {
    if (BANNED.some((r) => r.test(line))) hits.push(`${file}:${i + 1}: ${line.trim()}`);
  });
  return hits;
}

const SELF = 'test/architecture/tree.test.ts';

describe('the tree', () => {
  const code = ['src', 'bench', 'test', 'strategies'].flatMap((d) => filesUnder(d, ['.ts', '.mts', '.mjs']));

  it(`keeps every source file under ${MAX_LINES} lines`, () => {
    expect(code.length).toBeGreaterThan(300);
    const long = code
      .map((f) => ({ f, n: readFileSync(path.join(root, f), 'utf8').split('\n').length - 1 }))
      .filter(({ f, n }) => n > MAX_LINES && !KNOWN_LONG.includes(f))
      .map(({ f, n }) => `${f}: ${n} lines`);
    expect(long).toEqual([]);
  });

  it('names no issue number and no working session in code or docs', () => {
    const docs = [...filesUnder('docs', ['.md']), ...['src', 'backtest-data', 'config', 'strategies'].flatMap((d) => filesUnder(d, ['.md', '.yaml']))];
    const top = ['README.md', 'CONVENTIONS.md'].filter((f) => statSync(path.join(root, f), { throwIfNoEntry: false })?.isFile());
    const hits = [...code, ...docs, ...top].filter((f) => f !== SELF).flatMap((f) => bannedLines(f, readFileSync(path.join(root, f), 'utf8')));
    expect(hits).toEqual([]);
  });

  it('recognises the banned phrases and lets ordinary words pass', () => {
    const say = (s: string): number => bannedLines('x', s).length;
    expect(say('measured in this ' + 'session')).toBe(1);
    expect(say('after ' + 'session 5, results')).toBe(1);
    expect(say('see issue ' + '16')).toBe(1);
    expect(say('Sandbox exchange (' + 'issue 4)')).toBe(1);
    expect(say('if (issue !== undefined) throw; a WebSocket session reconnects')).toBe(0);
  });
});
