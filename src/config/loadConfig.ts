/**
 * Reads and validates a run configuration. Every error is a ConfigError naming the file, the
 * path in the document (`strategies[0].params.spread`), the value and, where the YAML parser
 * knows it, the line and column. Relative paths resolve against the YAML file's folder so a
 * config works from any working directory.
 */
import path from 'node:path';
import { configSchema, type ConfigDocument } from './schema.js';
import { findSecretKey, SECRET_ENV } from './secrets.js';
import { timeBoundMs } from './timeBound.js';
import { ConfigSource } from './source.js';
import { firstIssue, readConfigText } from './yamlFile.js';

/** A validated configuration with absolute file paths. */
export type RunConfiguration = ConfigDocument & {
  /** Absolute path of the YAML file. */
  readonly file: string;
  /** Its folder (plugin paths and data files resolve against it). */
  readonly dir: string;
};

/** The configuration and its source (for errors that later stages find, e.g. plugin params). */
export interface LoadedConfig {
  readonly config: RunConfiguration;
  readonly source: ConfigSource;
}

/** True when a plugin reference is a path rather than a name from strategies/. */
export function isPluginPath(ref: string): boolean {
  return ref.includes('/') || ref.includes('\\') || /\.(ts|mts|js|mjs)$/.test(ref);
}

/** A run mode. */
export type ConfigMode = ConfigDocument['mode'];

/** What a caller accepts: `kancil run` takes live and paper, `kancil backtest` backtest (and supplies it when absent). */
export interface ConfigOptions {
  /** Modes the caller runs; any other is an error at `mode`. Default: all. */
  readonly modes?: readonly ConfigMode[];
  /** Mode of a document that names none (default: none, `mode` is required). */
  readonly defaultMode?: ConfigMode;
}

/**
 * Refuses a sandbox exchange's config (config/paper-sandbox.yaml: `accounts`, no `strategies`)
 * given to `kancil run` or `backtest`, naming the command that starts it: otherwise its test keys
 * read as the user's credentials in a config file, a misleading refusal.
 */
function sandboxConfigCheck(source: ConfigSource, file: string): void {
  const doc = source.value;
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc) || !('accounts' in doc) || 'strategies' in doc) return;
  throw source.error(['accounts'], `a sandbox exchange's config, not a run config: start it with kancil sandbox --config ${file}, or name it as a run config's sandbox.config (config/default.yaml runs on config/paper-sandbox.yaml)`, { redact: true });
}

/** Validates YAML text; `file` names it in errors and anchors relative paths. */
export function parseConfig(text: string, file: string, opts: ConfigOptions = {}): LoadedConfig {
  return validate(new ConfigSource(file, text), file, opts);
}

/** Validates a document given as values (no text, so errors name no line); otherwise as parseConfig. */
export function parseConfigValue(value: unknown, file: string, opts: ConfigOptions = {}): LoadedConfig {
  return validate(ConfigSource.fromValue(file, value), file, opts);
}

function validate(source: ConfigSource, file: string, opts: ConfigOptions): LoadedConfig {
  sandboxConfigCheck(source, file);
  const secretAt = findSecretKey(source.value);
  if (secretAt) {
    throw source.error(secretAt, `credentials are not allowed in config files; set ${Object.values(SECRET_ENV).join(', ')} in the environment`, { redact: true });
  }
  let doc = source.value;
  if (opts.defaultMode !== undefined && typeof doc === 'object' && doc !== null && !Array.isArray(doc) && !('mode' in doc)) doc = { ...doc, mode: opts.defaultMode };
  const mode = typeof doc === 'object' && doc !== null ? (doc as { mode?: unknown }).mode : undefined;
  if (opts.modes && typeof mode === 'string' && !(opts.modes as readonly string[]).includes(mode)) {
    throw source.error(['mode'], `expected ${opts.modes.join(' or ')} here${mode === 'backtest' ? ' (use kancil backtest)' : opts.modes.includes('backtest') ? ' (use kancil run)' : ''}`);
  }
  const r = configSchema.safeParse(doc);
  if (!r.success) throw firstIssue(source, r.error.issues);
  const cfg = r.data;

  const names = new Map<string, number>();
  cfg.strategies.forEach((s, i) => {
    if (names.has(s.name)) throw source.error(['strategies', i, 'name'], `strategy names must be unique (also strategies[${names.get(s.name)}])`);
    names.set(s.name, i);
  });
  if (cfg.exchange && cfg.sandbox) throw source.error(['sandbox'], 'give either exchange URLs or a sandbox to start, not both');
  if (cfg.mode === 'live' || cfg.mode === 'paper') {
    if (!cfg.exchange && !cfg.sandbox) throw source.error(['exchange'], `mode ${cfg.mode} needs exchange URLs or a sandbox to start`, { value: undefined });
  }
  if (source.valueAt(['paper', 'latencyMs']) !== undefined && source.valueAt(['paper', 'latency']) !== undefined) {
    throw source.error(['paper', 'latencyMs'], 'give either paper.latencyMs (one constant for all) or paper.latency, not both');
  }
  if (cfg.mode === 'live' && !cfg.storage) throw source.error(['storage'], 'mode live needs storage.path (the ledger)', { value: undefined });
  if (cfg.mode === 'backtest') {
    const bt = cfg.backtest;
    if (!bt) throw source.error(['backtest'], 'mode backtest needs a backtest section', { value: undefined });
    if (bt.recordings.length === 0 && bt.candles.length === 0) throw source.error(['backtest'], 'needs recordings or candles');
    // Compared as epoch ms: a bound may be written as a number or as ISO text (Date.parse of a number's text is NaN).
    if (bt.start !== undefined && bt.end !== undefined && timeBoundMs(bt.start) > timeBoundMs(bt.end)) {
      throw source.error(['backtest', 'start'], `after backtest.end (${JSON.stringify(bt.end)}): nothing would be delivered`);
    }
    if (bt.recordings.length > 0) {
      cfg.strategies.forEach((s, i) =>
        s.symbols.forEach((sym, j) => {
          if (!(sym in cfg.symbols)) throw source.error(['strategies', i, 'symbols', j], 'not listed under symbols (a replay needs its filters)');
        }),
      );
    }
  }

  const dir = path.dirname(path.resolve(file));
  const abs = (f: string): string => path.resolve(dir, f);
  // A recorded latency file resolves like the data files; the paper shorthand sets all three.
  const latencyFiles = <L extends Record<string, unknown>>(l: L): L => Object.fromEntries(Object.entries(l).map(([k, v]) => [k, typeof v === 'object' && v !== null && 'file' in v ? { ...v, file: abs(String(v.file)) } : v])) as L;
  const paperLatency = cfg.paper.latencyMs === undefined ? latencyFiles(cfg.paper.latency) : { entryMs: cfg.paper.latencyMs, cancelMs: cfg.paper.latencyMs, ackMs: cfg.paper.latencyMs, streamHoldMs: cfg.paper.latency.streamHoldMs, seed: cfg.paper.latency.seed };
  const config: RunConfiguration = {
    ...cfg,
    paper: { ...cfg.paper, latency: paperLatency },
    strategies: cfg.strategies.map((s) => (isPluginPath(s.plugin) ? { ...s, plugin: abs(s.plugin) } : s)),
    ...(cfg.storage ? { storage: { path: cfg.storage.path === ':memory:' ? ':memory:' : abs(cfg.storage.path) } } : {}),
    ...(cfg.sandbox ? { sandbox: { ...cfg.sandbox, config: abs(cfg.sandbox.config) } } : {}),
    ...(cfg.backtest
      ? {
          backtest: {
            ...cfg.backtest,
            recordings: cfg.backtest.recordings.map((x) => ({ ...x, files: x.files.map(abs) })),
            candles: cfg.backtest.candles.map((x) => ({ ...x, files: x.files.map(abs) })),
            latency: latencyFiles(cfg.backtest.latency),
            ...(cfg.backtest.output !== undefined ? { output: abs(cfg.backtest.output) } : {}),
          },
        }
      : {}),
    file: path.resolve(file),
    dir,
  };
  return { config, source };
}

/** Reads and validates a YAML configuration file. */
export function loadConfig(file: string, opts: ConfigOptions = {}): LoadedConfig {
  return parseConfig(readConfigText(file), file, opts);
}
