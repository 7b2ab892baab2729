/**
 * Output folders checked before a command does its work: a folder that cannot be written is found
 * out in the first second, not as a stack trace (or a hang) after an hour's backtest. Nothing is
 * left behind (a run refused for another reason leaves no empty folder).
 */
import { accessSync, constants, statSync } from 'node:fs';
import path from 'node:path';
import { newEntryFailure } from '../store/makeFolder.js';

/** Why `dir` cannot become a written output folder, or undefined when it can. */
export function outputDirProblem(dir: string): string | undefined {
  let at = path.resolve(dir);
  // The folder itself when it exists, else its nearest existing ancestor (which must be a writable folder).
  for (;;) {
    let st;
    try {
      st = statSync(at);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT' && code !== 'ENOTDIR') return `cannot use it (${(err as Error).message})`;
      const up = path.dirname(at);
      if (up === at) return 'no part of the path exists';
      at = up;
      continue;
    }
    const self = at === path.resolve(dir);
    if (!st.isDirectory()) return self ? 'exists and is not a folder' : `${at} is not a folder`;
    try {
      accessSync(at, constants.W_OK);
    } catch {
      return self ? 'is not writable' : `cannot be created: ${at} is not writable`;
    }
    return probeProblem(at, self);
  }
}

/** Whether a new entry can really be made in the folder `at` (see newEntryFailure: /proc takes none). */
function probeProblem(at: string, self: boolean): string | undefined {
  const code = newEntryFailure(at);
  if (code === undefined) return undefined;
  return self ? `takes no new entry (${code})` : `cannot be created: ${at} takes no new entry (${code})`;
}
