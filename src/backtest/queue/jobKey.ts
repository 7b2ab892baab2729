/**
 * Idempotent ids of queued sweep jobs: a hash of everything that decides a job's result (the
 * resolved config, the strategy's source file, the point, its window and recording, the identity
 * of every data file, the kancil version). The same sweep enqueued twice maps to the same jobs,
 * so nothing runs twice and a finished sweep is found again; any change gives new ids.
 */
import { createHash } from 'node:crypto';
import { closeSync, openSync, readSync, statSync } from 'node:fs';
import type { SweepJob } from '../sweepJob.js';

/** Bytes of a data file hashed for its identity: enough to tell recordings apart, cheap for large ones. */
const HEAD_BYTES = 65_536;

/**
 * Which file a job reads, as a worker can check it on its own disk: path, size and a hash of the
 * first 64 KiB (mtime differs between machines after a copy, so it is not part of it).
 */
export interface FileIdentity {
  readonly path: string;
  readonly size: number;
  readonly head: string;
}

/** The identity of `file` (throws when it cannot be read). */
export function fileIdentity(file: string): FileIdentity {
  const size = statSync(file).size;
  const fd = openSync(file, 'r');
  try {
    const buf = Buffer.alloc(Math.min(size, HEAD_BYTES));
    const n = readSync(fd, buf, 0, buf.length, 0);
    return { path: file, size, head: createHash('sha256').update(buf.subarray(0, n)).digest('hex').slice(0, 32) };
  } finally {
    closeSync(fd);
  }
}

/** JSON with object keys sorted at every level, so equal values hash equally whatever their key order. */
export function stableJson(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) => (v !== null && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) : v));
}

/** What a job's id is made of, besides the job itself (its index is only its place in one sweep). */
export interface JobIdentity {
  /** The resolved config (parsed, paths absolute). */
  readonly config: unknown;
  /** Hash of the strategy plugin's source file. */
  readonly plugin: string;
  /** The data files the job reads. */
  readonly files: readonly FileIdentity[];
  readonly version: string;
}

/** A job's id: `kancil-` and 40 hex digits (never a bare number, which BullMQ reserves for its own ids). */
export function queueJobId(job: SweepJob, id: JobIdentity): string {
  const key = stableJson({ config: id.config, plugin: id.plugin, files: id.files, version: id.version, strategy: job.strategy, params: job.params, window: job.window ?? null, recording: job.recording ?? null, full: job.full === true });
  return `kancil-${createHash('sha256').update(key).digest('hex').slice(0, 40)}`;
}
