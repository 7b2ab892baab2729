/** kancil's version (a module of its own: commands read it without importing the CLI entry). */
import { readFileSync } from 'node:fs';

/** kancil's version, from its package.json. */
export function version(): string {
  // src/cli/ in a checkout, dist/src/cli/ when compiled: the nearest package.json above is kancil's.
  for (const up of ['../../package.json', '../../../package.json']) {
    try {
      return (JSON.parse(readFileSync(new URL(up, import.meta.url), 'utf8')) as { version: string }).version;
    } catch {
      // not at this level
    }
  }
  return 'unknown';
}
