/**
 * Loads strategy plugins: a bare name means `strategies/<name>.ts` (or .js) of this project, a
 * path (with a slash or a .ts/.js/.mjs suffix) is taken relative to the configuration's folder.
 * The default export must be a StrategyPlugin (defineStrategy); its parameters are validated with
 * its own schema, and errors name `strategies[i].params.<path>` and the value.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import type * as TsxApi from 'tsx/esm/api';
import { register } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { formatDocPath } from '../core/configIssue.js';
import { ConfigError } from '../core/errors.js';
import { Decimal } from '../core/decimal.js';
import { validateParams } from './params.js';
import type { StrategyPlugin } from './types.js';
import { PLUGIN_HOOKS_URL } from './pluginHooks.js';
import { importModule } from './importModule.js';
import type { StrategySpec } from './StrategyRunner.js';

/** The project root (the folder with package.json). */
export const PROJECT_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/** kancil's package folder (with package.json): PROJECT_ROOT, or above it when running compiled from dist/. */
export const PACKAGE_ROOT = ((): string => {
  for (let dir = PROJECT_ROOT; ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, 'package.json')) || path.dirname(dir) === dir) return dir;
  }
})();

/** True when `x` has the shape of a StrategyPlugin. */
export function isStrategyPlugin(x: unknown): x is StrategyPlugin {
  if (typeof x !== 'object' || x === null) return false;
  const p = x as Partial<StrategyPlugin>;
  return typeof p.name === 'string' && p.name.length > 0 && typeof p.description === 'string' && typeof p.create === 'function' && typeof (p.params as { safeParse?: unknown } | undefined)?.safeParse === 'function';
}

/** File of a plugin reference (does not check that it exists). */
export function resolvePlugin(ref: string, configDir: string, root = PROJECT_ROOT): string {
  if (ref.includes('/') || ref.includes('\\') || /\.(ts|mts|js|mjs)$/.test(ref)) return path.resolve(configDir, ref);
  const ts = path.join(root, 'strategies', `${ref}.ts`);
  return existsSync(ts) ? ts : path.join(root, 'strategies', `${ref}.js`);
}

/** Reports an error at a path of the configuration (the config loader supplies one with line numbers). */
export type ErrorAt = (docPath: readonly PropertyKey[], rule: string, value?: unknown) => Error;

/** An ErrorAt that makes ConfigErrors without line numbers. */
export function plainErrorAt(file: string): ErrorAt {
  return (p, rule, value) => new ConfigError(file, formatDocPath(p), value, rule);
}

let tsxRegistered = false;

/**
 * Registers tsx before a TypeScript plugin is imported by the compiled CLI (dist/, plain Node):
 * only then, so a run of compiled plugins compiles nothing. Under tsx (tests, a dev checkout)
 * this module is itself TypeScript and TypeScript imports already work.
 */
async function typeScriptLoaderFor(file: string): Promise<void> {
  if (tsxRegistered || !/\.[mc]?ts$/.test(file) || !import.meta.url.endsWith('.js')) return;
  const { register } = (await importModule('tsx/esm/api')) as typeof TsxApi;
  register();
  tsxRegistered = true;
}

let hooksRegistered = false;

/** `true` in the compiled bundle (bin/bundle-dist.mjs defines it), where the entry modules sit beside this code. */
declare const KANCIL_BUNDLED: boolean | undefined;

/** The URL of kancil's entry module `entry` ('index', 'testing', 'indicators') that this copy of the loader belongs to. */
function ownEntry(entry: string, ext: '.js' | '.ts'): string {
  const bundled = typeof KANCIL_BUNDLED !== 'undefined' && KANCIL_BUNDLED;
  return new URL(`${bundled ? './' : '../'}${entry}${ext}`, import.meta.url).href;
}

/**
 * Lets a plugin outside the project import `kancil` and kancil's dependencies, and makes `kancil`
 * in a plugin the very modules the running CLI is made of (pluginHooks.ts): the compiled ones for
 * a plugin outside a compiled kancil's tree, the TypeScript sources for every plugin when the CLI
 * runs from its sources (the package's `exports` name dist/ for plain Node, which may be stale in
 * a checkout and would be a second copy of every class). Once per thread; a compiled in-tree run
 * keeps Node's plain resolution (and starts no loader thread).
 */
function allowOutOfTree(file: string): void {
  const ext = import.meta.url.endsWith('.js') ? '.js' : '.ts';
  // Compiled in-tree plugins (dist/strategies) import the compiled modules by path (bin/build-finish.mjs).
  if (hooksRegistered || (ext === '.js' && !path.relative(PROJECT_ROOT, file).startsWith('..'))) return;
  hooksRegistered = true;
  const own = (entry: string): string => ownEntry(entry, ext);
  // Compiled, kancil's trading-signals is its bundle (bin/vendor-deps.mjs): the plugin's must be that copy too (one class per indicator and error).
  const vendored = ext === '.js' ? { 'trading-signals': new URL('../../vendor/trading-signals.js', import.meta.url).href } : {};
  const data = {
    root: pathToFileURL(path.join(PACKAGE_ROOT, 'package.json')).href,
    own: { kancil: own('index'), 'kancil/testing': own('testing'), 'kancil/indicators': own('indicators'), ...vendored },
  };
  register(PLUGIN_HOOKS_URL, { data });
}

/**
 * A TypeScript plugin in a folder whose package.json does not say `"type": "module"` (or that has
 * none) is compiled as CommonJS, which cannot import kancil's ES modules: say so.
 */
function moduleHint(file: string): string {
  if (!/\.ts$/.test(file)) return '';
  for (let dir = path.dirname(file); ; dir = path.dirname(dir)) {
    const pkg = path.join(dir, 'package.json');
    if (existsSync(pkg)) {
      try {
        if ((JSON.parse(readFileSync(pkg, 'utf8')) as { type?: unknown }).type === 'module') return '';
      } catch {
        return '';
      }
      return ` (${pkg} does not say "type": "module": a TypeScript plugin importing kancil must be an ES module; add it, or name the file .mts)`;
    }
    if (path.dirname(dir) === dir) return ` (no package.json with "type": "module" above ${file}: a TypeScript plugin importing kancil must be an ES module; add one, or name the file .mts)`;
  }
}

/** The names of a module file a plugin may be. */
const MODULE_FILE = /\.(ts|mts|js|mjs)$/;

/** Imports a plugin and checks its default export. `where` is its path in the configuration. */
export async function loadPlugin(ref: string, configDir: string, errorAt: ErrorAt, where: readonly PropertyKey[]): Promise<StrategyPlugin> {
  const file = resolvePlugin(ref, configDir);
  if (!existsSync(file)) throw errorAt([...where, 'plugin'], `no plugin module at ${file}`, ref);
  // Importing runs the file as code: only a module file is taken (not /etc/passwd, a folder, a device).
  if (!MODULE_FILE.test(file) || !statSync(file).isFile()) throw errorAt([...where, 'plugin'], `${file} is not a module file: a plugin is a .ts, .mts, .js or .mjs file`, ref);
  let mod: { default?: unknown };
  allowOutOfTree(file);
  try {
    await typeScriptLoaderFor(file);
    mod = (await importModule(pathToFileURL(file).href)) as { default?: unknown };
  } catch (err) {
    throw errorAt([...where, 'plugin'], `cannot import ${file}: ${(err as Error).message}${moduleHint(file)}`, ref);
  }
  if (!isStrategyPlugin(mod.default)) throw errorAt([...where, 'plugin'], `${file} has no default export made with defineStrategy (name, description, params schema, create)`, ref);
  return mod.default;
}

/** One `strategies[i]` entry as the configuration gives it. */
export interface StrategyEntry {
  readonly name: string;
  readonly plugin: string;
  readonly symbols: readonly string[];
  readonly budget?: Readonly<Record<string, string>>;
  readonly params?: unknown;
}

/** Loads every strategy of a configuration, validating parameters; the first problem throws. */
export async function loadStrategies(entries: readonly StrategyEntry[], configDir: string, errorAt: ErrorAt): Promise<StrategySpec[]> {
  const out: StrategySpec[] = [];
  for (const [i, e] of entries.entries()) {
    const where = ['strategies', i] as const;
    const plugin = await loadPlugin(e.plugin, configDir, errorAt, where);
    const r = validateParams(plugin, e.params);
    if (!r.ok) {
      const issue = r.issues[0];
      throw errorAt([...where, 'params', ...(issue?.path ?? [])], `${issue?.message ?? 'invalid'} (plugin ${plugin.name})`, issue?.value);
    }
    const budget: Record<string, Decimal> = {};
    for (const [asset, v] of Object.entries(e.budget ?? {})) budget[asset] = new Decimal(v);
    out.push({ name: e.name, plugin, params: r.value, symbols: e.symbols, budget });
  }
  return out;
}
