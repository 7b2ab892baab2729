/** Whether dist/ holds a build at least as new as the sources (tests of the compiled CLI skip otherwise). */
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';

/** The project root. */
export const ROOT = path.resolve(import.meta.dirname, '../..');

/** Newest modification time of the .ts sources under `dir` (tests excluded). */
function newest(dir: string): number {
  let t = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) t = Math.max(t, newest(p));
    else if (e.name.endsWith('.ts') && !e.name.endsWith('.test.ts')) t = Math.max(t, statSync(p).mtimeMs);
  }
  return t;
}

/** True when `npm run build` ran after the last change to src/ or strategies/. */
export function builtIsFresh(): boolean {
  const built = path.join(ROOT, 'dist/BUILT');
  return existsSync(built) && statSync(built).mtimeMs >= Math.max(newest(path.join(ROOT, 'src')), newest(path.join(ROOT, 'strategies')));
}
