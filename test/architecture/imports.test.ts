/**
 * The import graph of src/ stays a one-way tree: no import circle anywhere (type-only imports
 * count), and each folder imports only the folders the dependency rule of docs/architecture.md
 * allows. dpdm parses the imports with the TypeScript compiler, so the check sees what tsc sees.
 */
import { fileURLToPath } from 'node:url';
import { readdirSync } from 'node:fs';
import { parseCircular, parseDependencyTree, type Dependency, type DependencyTree } from 'dpdm';
import { beforeAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** What each folder of src/ may import besides itself; `*`: anything. */
const ALLOWED: Readonly<Record<string, readonly string[]>> = {
  core: [],
  exchange: ['core'],
  sim: ['core'],
  bus: ['core'],
  config: ['core'],
  risk: ['core', 'bus'],
  strategy: ['core', 'bus'],
  store: ['core', 'bus'],
  execution: ['core', 'bus', 'exchange', 'risk', 'store'],
  sandbox: ['core', 'sim'],
  record: ['core', 'config', 'exchange'],
  console: ['core', 'bus', 'execution', 'store'],
  venue: ['core', 'bus', 'execution', 'risk', 'sim', 'store', 'strategy'],
  run: ['core', 'bus', 'execution', 'risk', 'store', 'strategy', 'venue'],
  backtest: ['core', 'bus', 'config', 'exchange', 'execution', 'record', 'risk', 'run', 'sim', 'store', 'strategy', 'venue'],
  cli: ['*'],
  /** src/index.ts and src/testing.ts: the package entries a plugin author imports. */
  entry: ['core', 'bus', 'strategy'],
};

/** The src/ folder a repository path lies in (`entry` for the package entries src/*.ts, '' outside src/). */
function folderOf(path: string): string {
  if (/^src\/[^/]+\.ts$/.test(path)) return 'entry';
  return /^src\/([^/]+)\//.exec(path)?.[1] ?? '';
}

/** Imports of non-test files of src/ that the dependency rule does not allow, one line each. */
function wrongWayImports(tree: DependencyTree): string[] {
  const wrong: string[] = [];
  for (const [file, deps] of Object.entries(tree)) {
    const from = folderOf(file);
    if (from === '' || file.endsWith('.test.ts') || deps === null) continue;
    const allowed = ALLOWED[from] ?? [];
    if (allowed.includes('*')) continue;
    for (const d of deps) {
      const to = d.id === null ? '' : folderOf(d.id);
      if (to !== '' && to !== from && !allowed.includes(to)) wrong.push(`${file} imports ${d.id} (${from} may import ${allowed.join(', ') || 'nothing of ours'})`);
    }
  }
  return wrong;
}

describe('import graph of src/', () => {
  let tree: DependencyTree;
  beforeAll(async () => {
    tree = await parseDependencyTree(['src/**/*.ts'], { cwd: root, context: root, tsconfig: `${root}tsconfig.json`, transform: false, skipDynamicImports: false });
  }, 60_000);

  it('parses every source file and resolves every relative import', () => {
    expect(Object.keys(tree).filter((f) => f.startsWith('src/')).length).toBeGreaterThan(100);
    const unresolved: string[] = [];
    for (const [file, deps] of Object.entries(tree)) {
      for (const d of deps ?? []) if (d.id === null && d.request.startsWith('.')) unresolved.push(`${file}: ${d.request}`);
    }
    expect(unresolved).toEqual([]);
  });

  it('has no import circle', () => {
    const circles = parseCircular(tree).map((c) => c.join(' -> '));
    expect(circles).toEqual([]);
  });

  it('declares a dependency rule for every folder of src/', () => {
    const folders = readdirSync(`${root}src`, { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => d.name);
    expect(folders.filter((f) => !(f in ALLOWED))).toEqual([]);
  });

  it('points dependencies one way (tests aside)', () => {
    expect(wrongWayImports(tree)).toEqual([]);
  });

  it('catches a circle and a wrong-way import in a made-up graph', () => {
    const dep = (issuer: string, id: string): Dependency => ({ issuer, request: id, kind: 'StaticImport' as Dependency['kind'], id });
    const fake: DependencyTree = {
      'src/risk/a.ts': [dep('src/risk/a.ts', 'src/risk/b.ts'), dep('src/risk/a.ts', 'src/execution/c.ts')],
      'src/risk/b.ts': [dep('src/risk/b.ts', 'src/risk/a.ts')],
      'src/risk/a.test.ts': [dep('src/risk/a.test.ts', 'src/cli/main.ts')],
      'src/cli/main.ts': [dep('src/cli/main.ts', 'src/risk/a.ts')],
    };
    expect(parseCircular(fake)).toEqual([['src/risk/a.ts', 'src/risk/b.ts']]);
    expect(wrongWayImports(fake)).toEqual(['src/risk/a.ts imports src/execution/c.ts (risk may import core, bus)']);
  });
});
