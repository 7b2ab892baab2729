/**
 * Idempotent ids of queued sweep jobs: a hash of everything that decides a job's result (the
 * resolved config, the strategy's source and the local modules it imports, the point, its window
 * and recording, the SHA-256 of every data and latency file in full, and the engine: kancil's own
 * code). The same sweep enqueued twice maps to the same jobs, so nothing runs twice and a finished
 * sweep is found again; any change, a single byte of a data file or of the engine, gives new ids,
 * so a result cached in Redis is only ever served for exactly the inputs that produced it.
 */
import { createHash } from 'node:crypto';
import { cachedDigest } from '../provenance.js';
import type { SweepJob } from '../sweepJob.js';

/**
 * A file a job reads, as a worker can check it on its own disk: path, size and SHA-256 of the
 * whole file (mtime differs between machines after a copy, so it is not part of it).
 */
export interface FileIdentity {
  readonly path: string;
  readonly bytes: number;
  readonly sha256: string;
}

/** The identity of `file` (throws when it cannot be read); hashed once while its size and mtime stay. */
export function fileIdentity(file: string): FileIdentity {
  const { bytes, sha256 } = cachedDigest(file);
  return { path: file, bytes, sha256 };
}

/** JSON with object keys sorted at every level, so equal values hash equally whatever their key order. */
export function stableJson(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) => (v !== null && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) : v));
}

/** What a job's id is made of, besides the job itself (its index is only its place in one sweep). */
export interface JobIdentity {
  /** The resolved config (parsed, paths absolute). */
  readonly config: unknown;
  /** Hash of the strategy plugin's source file and its local imports. */
  readonly plugin: string;
  /** The data and latency files the job reads. */
  readonly files: readonly FileIdentity[];
  /** Hash of the engine (engineHash.ts). */
  readonly engine: string;
}

/** A job's id: `kancil-` and 40 hex digits (never a bare number, which BullMQ reserves for its own ids). */
export function queueJobId(job: SweepJob, id: JobIdentity): string {
  const key = stableJson({ config: id.config, plugin: id.plugin, files: id.files, engine: id.engine, strategy: job.strategy, params: job.params, window: job.window ?? null, recording: job.recording ?? null, full: job.full === true });
  return `kancil-${createHash('sha256').update(key).digest('hex').slice(0, 40)}`;
}
