/**
 * What produced a backtest's result, written into result.json and the report: the configuration
 * as run (every default filled in), each strategy's parameters as its plugin read them, every
 * input file (data, latency files, the strategy's own module) with its size and SHA-256, and the
 * kancil version with the commit of the tree it ran from and whether that tree was clean. Two runs
 * that differ in anything that can move a figure differ here, and `kancil backtest --rerun`
 * repeats a run from this record alone.
 *
 * Nothing here depends on when or where the run happened (no wall-clock time, no host name), so
 * the same inputs give the same bytes.
 */
import { closeSync, openSync, readSync, type Stats, statSync } from 'node:fs';
import { storeDigest, storedDigest } from './digestCache.js';
import type { BacktestConfig } from './config.js';
import type { ErrorAt } from '../strategy/loader.js';
import { validateParams } from '../strategy/params.js';
import type { StrategySpec } from '../strategy/StrategyRunner.js';

/** One input file of a run. */
export interface InputFile {
  /** What it is: `backtest.recordings`, `backtest.candles`, `backtest.latency.entryMs`, `strategies.<name>.plugin`. */
  readonly role: string;
  readonly path: string;
  readonly bytes: number;
  readonly sha256: string;
}

/** The code that ran: the package version and, in a git checkout, its commit and cleanliness. */
export interface CodeVersion {
  readonly version: string;
  /** HEAD of the tree kancil ran from; null outside a git checkout (an installed package). */
  readonly commit: string | null;
  /** Whether that tree had no uncommitted change to tracked files; null outside a git checkout. */
  readonly clean: boolean | null;
}

/** A strategy as it ran: its plugin and the parameters after the plugin's defaults. */
export interface StrategyAsRun {
  readonly name: string;
  readonly plugin: string;
  readonly params: unknown;
}

/** Everything that produced a result (see the module comment). */
export interface RunProvenance {
  readonly kancil: CodeVersion;
  /** The YAML file the run was configured from (relative paths of `config` resolved against its folder). */
  readonly configFile: string;
  /** The configuration as run: the parsed document with every default filled in and absolute paths. */
  readonly config: Omit<BacktestConfig, 'file' | 'dir'>;
  readonly strategies: readonly StrategyAsRun[];
  readonly inputs: readonly InputFile[];
}

/** Digests by path, kept while the file's size and modification time stay (a sweep hashes its data once per process). */
const digests = new Map<string, { size: number; mtimeMs: number; bytes: number; sha256: string }>();

/** {@link fileDigest}, reused while the file's size and modification time are unchanged (and across processes: digestCache.ts). */
export function cachedDigest(file: string): { bytes: number; sha256: string } {
  const st = statSync(file);
  const hit = digests.get(file);
  if (hit !== undefined && hit.size === st.size && hit.mtimeMs === st.mtimeMs) return hit;
  const stored = storedDigest(file, st);
  const d = stored ?? fileDigest(file);
  // Stored only when the file is still as stat saw it before hashing (not written meanwhile).
  if (stored === undefined && sameVersion(st, statSync(file))) storeDigest(file, st, d);
  digests.set(file, { size: st.size, mtimeMs: st.mtimeMs, ...d });
  return d;
}

function sameVersion(a: Stats, b: Stats): boolean {
  return a.ino === b.ino && a.dev === b.dev && a.size === b.size && a.mtimeMs === b.mtimeMs && a.ctimeMs === b.ctimeMs;
}

/** SHA-256 (hex) and size of a whole file, read in 1 MiB pieces. */
export function fileDigest(file: string): { bytes: number; sha256: string } {
  // node:crypto loaded here, at the first digest not stored (digestCache.ts), not at every start.
  const hash = process.getBuiltinModule('node:crypto').createHash('sha256');
  const fd = openSync(file, 'r');
  try {
    const buf = Buffer.allocUnsafe(1 << 20);
    let bytes = 0;
    for (let n = readSync(fd, buf); n > 0; n = readSync(fd, buf)) {
      hash.update(buf.subarray(0, n));
      bytes += n;
    }
    return { bytes, sha256: hash.digest('hex') };
  } finally {
    closeSync(fd);
  }
}

/** The files a config reads, each once, with the role of its first mention. */
export function inputPaths(cfg: BacktestConfig, pluginFiles: ReadonlyMap<string, string>): { role: string; path: string }[] {
  const out: { role: string; path: string }[] = [];
  const seen = new Set<string>();
  const add = (role: string, p: string): void => {
    if (seen.has(p)) return;
    seen.add(p);
    out.push({ role, path: p });
  };
  const bt = cfg.backtest;
  for (const r of bt.recordings) for (const f of r.files) add('backtest.recordings', f);
  for (const c of bt.candles) for (const f of c.files) add('backtest.candles', f);
  for (const [k, v] of Object.entries(bt.latency)) if (typeof v === 'object' && v !== null && 'file' in v) add(`backtest.latency.${k}`, String(v.file));
  for (const [name, file] of pluginFiles) add(`strategies.${name}.plugin`, file);
  return out;
}

/** Builds the record of a run (hashing every input in full). */
export function runProvenance(cfg: BacktestConfig, kancil: CodeVersion, strategies: readonly StrategyAsRun[], pluginFiles: ReadonlyMap<string, string>): RunProvenance {
  const { file, dir, ...rest } = cfg;
  void dir;
  // Where the reports go is not an assumption of the run: the same run written elsewhere is the same run.
  const config = { ...rest, backtest: { ...rest.backtest, output: undefined } };
  const inputs = inputPaths(cfg, pluginFiles).map(({ role, path }) => {
    const { bytes, sha256 } = cachedDigest(path);
    return { role, path, bytes, sha256 };
  });
  // A JSON round trip: the record holds plain data only (decimals as their text), as result.json will.
  return JSON.parse(JSON.stringify({ kancil, configFile: file, config, strategies, inputs })) as RunProvenance;
}

/** Whether a file still has the size and hash a record gives it. */
export function inputChanged(input: InputFile): string | undefined {
  let now: { bytes: number; sha256: string };
  try {
    if (!statSync(input.path).isFile()) return `${input.path} is no longer a file`;
    now = fileDigest(input.path);
  } catch (err) {
    return `${input.path} cannot be read (${(err as Error).message})`;
  }
  if (now.sha256 === input.sha256) return undefined;
  return `${input.path} changed: ${input.bytes} bytes sha256 ${input.sha256.slice(0, 12)}… then, ${now.bytes} bytes sha256 ${now.sha256.slice(0, 12)}… now`;
}

/**
 * Each strategy with its parameters as its plugin read them (defaults filled in). A bad parameter
 * must stop the run before any data is read (the runner starts only when the replay goes live,
 * possibly after a long warm-up): named by the config file and its path there.
 */
export function strategiesAsRun(cfg: BacktestConfig, strategies: readonly StrategySpec[], errorAt: ErrorAt): StrategyAsRun[] {
  return strategies.map((s, i) => {
    const v = validateParams(s.plugin, s.params);
    if (!v.ok) {
      const issue = v.issues[0];
      if (issue !== undefined) throw errorAt(['strategies', i, 'params', ...issue.path], issue.message, issue.value);
    }
    return { name: s.name, plugin: cfg.strategies[i]?.plugin ?? s.plugin.name, params: v.ok ? v.value : s.params };
  });
}
