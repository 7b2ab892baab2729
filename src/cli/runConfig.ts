/**
 * The YAML of `kancil run` (modes live and paper). It is the one configuration schema of
 * src/config (also used by `kancil backtest` and published as config/schema.json), narrowed to
 * what a run needs: mode live or paper, and a ledger (storage.path; ':memory:' for none). Errors
 * are ConfigErrors naming the file, the path in the document, the value and (for files) the line.
 * Secrets are never read from the file: src/config refuses any credential-looking key.
 */
import { loadConfig, parseConfigValue, type ConfigMode, type LoadedConfig, type RunConfiguration } from '../config/loadConfig.js';

export { SECRET_ENV } from '../config/secrets.js';

/** A validated run config with absolute paths. */
export type RunConfig = RunConfiguration & { readonly mode: 'live' | 'paper'; readonly storage: { readonly path: string } };

const RUN_MODES: readonly ConfigMode[] = ['live', 'paper'];

function narrow({ config, source }: LoadedConfig): RunConfig {
  if (config.mode === 'backtest') throw source.error(['mode'], 'expected live or paper here (use kancil backtest)');
  // Paper runs journal too, so a paper run's ledger looks like a live one.
  if (!config.storage) throw source.error(['storage'], `mode ${config.mode} needs storage.path (the ledger; ':memory:' for none)`, { value: undefined });
  return { ...config, mode: config.mode, storage: config.storage };
}

/** Validates a parsed document; `file` names it in errors and anchors relative paths. */
export function parseRunConfig(doc: unknown, file: string): RunConfig {
  return narrow(parseConfigValue(doc, file, { modes: RUN_MODES }));
}

/** Reads and validates a run YAML file. */
export function loadRunConfig(file: string): RunConfig {
  return narrow(loadConfig(file, { modes: RUN_MODES }));
}
