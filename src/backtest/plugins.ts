/**
 * Loads strategy plugins: a bare name means `strategies/<name>.ts` of this project; anything with a
 * slash or a .ts/.js/.mjs suffix is a path relative to the config file's folder.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { ConfigError } from '../core/errors.js';
import type { StrategyPlugin } from '../strategy/types.js';

/** Root of this project (the folder with package.json). */
export const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/** Resolves a plugin reference to a file path. */
export function pluginPath(ref: string, configDir: string): string {
  if (ref.includes('/') || /\.(ts|js|mjs)$/.test(ref)) return path.resolve(configDir, ref);
  return path.join(projectRoot, 'strategies', `${ref}.ts`);
}

/** Imports a plugin module and checks its default export has the plugin shape. */
export async function loadPlugin(ref: string, configDir: string, configFile = '<config>'): Promise<StrategyPlugin> {
  const file = pluginPath(ref, configDir);
  if (!existsSync(file)) throw new ConfigError(configFile, 'strategies.plugin', ref, `no plugin file at ${file}`);
  const mod = (await import(pathToFileURL(file).href)) as { default?: unknown };
  const p = mod.default as Partial<StrategyPlugin> | undefined;
  if (p === undefined || typeof p.name !== 'string' || typeof p.create !== 'function' || p.params === undefined) {
    throw new ConfigError(configFile, 'strategies.plugin', ref, 'module has no default export made with defineStrategy');
  }
  return p as StrategyPlugin;
}
