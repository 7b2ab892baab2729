#!/usr/bin/env node
// Entry of `npx kancil`: runs the compiled JavaScript bundle in dist/src/bundle (`npm run build`,
// which `npm ci` and `npm install` run as the prepare step; bin/bundle-dist.mjs), so a start
// compiles no TypeScript. In a checkout where dist/ is missing or a source is newer than the last
// build, it registers tsx and runs the TypeScript sources instead (slower to start, never stale).
// KANCIL_FROM_SOURCE=1 forces the sources.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

/** Newest modification time (ms) of the .ts files under `dir`, 0 when there are none. */
function newestSource(dir) {
  let newest = 0;
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return 0;
  }
  for (const e of entries) {
    const p = `${dir}/${e.name}`;
    if (e.isDirectory()) newest = Math.max(newest, newestSource(p));
    else if (e.name.endsWith('.ts') && !e.name.endsWith('.test.ts')) newest = Math.max(newest, statSync(p).mtimeMs);
  }
  return newest;
}

function builtIsFresh() {
  if (process.env.KANCIL_FROM_SOURCE === '1') return false;
  // An installed package (no .git beside it) was built when it was packed: npm gives extracted
  // files the time of the install, in any order, so comparing times there would run the sources.
  if (!existsSync(`${root}.git`)) return existsSync(`${root}dist/BUILT`);
  let built;
  try {
    built = statSync(`${root}dist/BUILT`).mtimeMs;
  } catch {
    return false;
  }
  return newestSource(`${root}src`) <= built && newestSource(`${root}strategies`) <= built;
}

let main;
if (builtIsFresh()) {
  main = await import('../dist/src/bundle/main.js');
} else {
  const { register } = await import('tsx/esm/api');
  register();
  main = await import('../src/cli/main.ts');
}
await main.runProcess(process.argv.slice(2));
