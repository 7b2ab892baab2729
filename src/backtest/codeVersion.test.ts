import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { gitState, parseGitStatus } from './codeVersion.js';

const OID = '49c50bf90d5ddc0a0612f2e8bb945ae3fe2060d0';

describe('parseGitStatus', () => {
  it('takes the commit from the branch.oid header and is clean without entries', () => {
    expect(parseGitStatus(`# branch.oid ${OID}\n# branch.head main\n`)).toEqual({ commit: OID, clean: true });
  });

  it('is not clean with a changed, renamed or unmerged entry', () => {
    for (const entry of ['1 .M N... 100644 100644 100644 aaa bbb src/a.ts', '2 R. N... 100644 100644 100644 aaa bbb R100 b.ts\ta.ts', 'u UU N... 1 2 3 4 a b c x.ts']) {
      expect(parseGitStatus(`# branch.oid ${OID}\n# branch.head main\n${entry}\n`)).toEqual({ commit: OID, clean: false });
    }
  });

  it('gives nulls for a repository without commits or output without a commit', () => {
    expect(parseGitStatus('# branch.oid (initial)\n# branch.head main\n')).toEqual({ commit: null, clean: null });
    expect(parseGitStatus('')).toEqual({ commit: null, clean: null });
  });
});

let hasGit = true;
try {
  execFileSync('git', ['--version'], { stdio: 'ignore' });
} catch {
  hasGit = false;
}

describe.skipIf(!hasGit)('gitState on a checkout (needs git)', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'kancil-codeversion-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const git = (...args: string[]): string => execFileSync('git', ['-C', dir, ...args], { encoding: 'utf8', env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' } }).trim();

  it('reads the same commit as rev-parse, clean until a tracked file changes; untracked files do not count', () => {
    git('init', '-q');
    expect(gitState(dir)).toEqual({ commit: null, clean: null });
    writeFileSync(path.join(dir, 'a.txt'), 'one\n');
    git('add', 'a.txt');
    git('commit', '-q', '-m', 'one');
    const head = git('rev-parse', 'HEAD');
    expect(gitState(dir)).toEqual({ commit: head, clean: true });
    writeFileSync(path.join(dir, 'untracked.txt'), 'x\n');
    expect(gitState(dir)).toEqual({ commit: head, clean: true });
    writeFileSync(path.join(dir, 'a.txt'), 'two\n');
    expect(gitState(dir)).toEqual({ commit: head, clean: false });
  });

  it('gives nulls outside a checkout', () => {
    const outside = mkdtempSync(path.join(tmpdir(), 'kancil-nogit-'));
    try {
      expect(gitState(outside)).toEqual({ commit: null, clean: null });
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  });
});
