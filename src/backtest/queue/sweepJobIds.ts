/**
 * The queue jobs of a sweep: each job's idempotent id (config, strategy source, input files,
 * engine: jobKey.ts) and the data a worker needs. Equal jobs share one id and one run.
 */
import { readConfigText } from '../../config/yamlFile.js';
import { resolvePlugin } from '../../strategy/loader.js';
import type { BacktestConfig } from '../config.js';
import { inputPaths } from '../provenance.js';
import { recordingFiles, type SweepJob } from '../sweepJob.js';
import { jobLabel, type QueueJobData } from './connection.js';
import type { EngineId } from './engineHash.js';
import { fileIdentity, queueJobId, type FileIdentity } from './jobKey.js';
import { sourceHash } from './sourceHash.js';

/** One queue job and the indexes of the sweep's jobs it answers. */
export interface SweepEntry {
  readonly data: QueueJobData;
  readonly indexes: number[];
}

/** Builds, for a call's jobs, their queue jobs by id (files and strategy sources are read once, at the first call). */
export function sweepJobIds(cfg: BacktestConfig, engine: EngineId): (jobs: readonly SweepJob[]) => Map<string, SweepEntry> {
  const recordings = recordingFiles(cfg);
  // Every file the config reads but the strategy's (hashed with its imports): recordings, candles, latency files.
  const inputs = inputPaths(cfg, new Map());
  const allFiles = inputs.map((i) => i.path);
  const otherFiles = inputs.filter((i) => i.role !== 'backtest.recordings').map((i) => i.path);
  // Read when the first jobs are sent: the sweep has checked the files exist by then.
  let read: { configText: string; identities: Map<string, FileIdentity> } | undefined;
  const files = (): { configText: string; identities: Map<string, FileIdentity> } => (read ??= { configText: readConfigText(cfg.file), identities: new Map(allFiles.map((f) => [f, fileIdentity(f)])) });
  const plugins = new Map<string, { path: string; hash: string }>();
  const pluginOf = (strategy: string): { path: string; hash: string } => {
    let p = plugins.get(strategy);
    if (p === undefined) {
      const spec = cfg.strategies.find((s) => s.name === strategy);
      if (spec === undefined) throw new RangeError(`strategy ${JSON.stringify(strategy)} is not in ${cfg.file}`);
      const file = resolvePlugin(spec.plugin, cfg.dir);
      p = { path: file, hash: sourceHash(file) };
      plugins.set(strategy, p);
    }
    return p;
  };
  return (jobs) => {
    const byId = new Map<string, SweepEntry>();
    const { configText, identities } = files();
    jobs.forEach((job, i) => {
      const recording = job.recording === undefined ? undefined : recordings[job.recording]?.file;
      const files = (recording === undefined ? allFiles : [recording, ...otherFiles]).map((f) => identities.get(f) as FileIdentity);
      const plugin = pluginOf(job.strategy);
      const id = queueJobId(job, { config: cfg, plugin: plugin.hash, files, engine: engine.hash });
      const entry = byId.get(id) ?? { data: { job: { ...job, index: 0, configText }, engine, files, plugin, label: jobLabel(job, recording) }, indexes: [] };
      entry.indexes.push(i);
      byId.set(id, entry);
    });
    return byId;
  };
}
