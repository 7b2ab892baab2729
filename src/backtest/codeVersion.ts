/**
 * The code a run used: kancil's package version and, when it runs from a git checkout, the commit
 * of that checkout and whether its tracked files were unchanged. Two builds with the same version
 * number (a worker ten hours older) can give different figures; the commit and the clean flag tell
 * them apart. Read once per process, with one git call: `git status --porcelain=v2 --branch` gives
 * the commit (its `# branch.oid` header) and the changed tracked files together, where
 * `rev-parse HEAD` and `status` were two processes started at every backtest (~3 ms of its CPU).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { PACKAGE_ROOT } from '../strategy/loader.js';
import type { CodeVersion } from './provenance.js';

let cached: CodeVersion | undefined;

/** The commit and cleanliness in git's `status --porcelain=v2 --branch` output; nulls when it names no commit. */
export function parseGitStatus(out: string): { commit: string | null; clean: boolean | null } {
  let commit: string | null = null;
  let changed = false;
  for (const line of out.split('\n')) {
    if (line.startsWith('# branch.oid ')) {
      const oid = line.slice('# branch.oid '.length).trim();
      // A repository without commits says "(initial)".
      if (/^[0-9a-f]{40,64}$/.test(oid)) commit = oid;
    } else if (line !== '' && !line.startsWith('#')) changed = true;
  }
  return commit === null ? { commit: null, clean: null } : { commit, clean: !changed };
}

/** The commit and cleanliness of the git checkout at `dir`; nulls when git is missing or `dir` is no checkout. */
export function gitState(dir: string): { commit: string | null; clean: boolean | null } {
  let out: string;
  try {
    out = execFileSync('git', ['-C', dir, 'status', '--porcelain=v2', '--branch', '--untracked-files=no'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], timeout: 5000 });
  } catch {
    // No git, or not a checkout: an installed package says so with nulls.
    return { commit: null, clean: null };
  }
  return parseGitStatus(out);
}

/** kancil's version, commit and cleanliness (see the module comment). */
export function codeVersion(): CodeVersion {
  if (cached !== undefined) return cached;
  let version = 'unknown';
  try {
    version = (JSON.parse(readFileSync(path.join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { version?: string }).version ?? 'unknown';
  } catch {
    // keep 'unknown'
  }
  // Only the checkout kancil itself is in: a package installed inside some other repository must not report that one's commit.
  const inCheckout = existsSync(path.join(PACKAGE_ROOT, '.git'));
  cached = { version, ...(inCheckout ? gitState(PACKAGE_ROOT) : { commit: null, clean: null }) };
  return cached;
}
