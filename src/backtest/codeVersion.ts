/**
 * The code a run used: kancil's package version and, when it runs from a git checkout, the commit
 * of that checkout and whether its tracked files were unchanged. Two builds with the same version
 * number (a worker ten hours older) can give different figures; the commit and the clean flag tell
 * them apart. Read once per process (two short git calls).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { PACKAGE_ROOT } from '../strategy/loader.js';
import type { CodeVersion } from './provenance.js';

let cached: CodeVersion | undefined;

function git(args: readonly string[]): string | undefined {
  try {
    return execFileSync('git', ['-C', PACKAGE_ROOT, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], timeout: 5000 }).trim();
  } catch {
    // No git, or not a checkout: an installed package says so with nulls.
    return undefined;
  }
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
  const commit = inCheckout ? git(['rev-parse', 'HEAD']) : undefined;
  const status = commit === undefined ? undefined : git(['status', '--porcelain', '--untracked-files=no']);
  cached = { version, commit: commit ?? null, clean: status === undefined ? null : status.length === 0 };
  return cached;
}
