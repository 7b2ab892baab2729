/**
 * What both sides of a queue sweep share: the queue's name, what a job carries, and the Redis
 * connection (checked reachable before anything is enqueued or taken, with an error naming the
 * URL, never its password).
 */
import { Redis, type RedisOptions } from 'ioredis';
import { NetworkError } from '../../core/errors.js';
import type { SweepJob } from '../sweepJob.js';
import type { EngineId } from './engineHash.js';
import type { FileIdentity } from './jobKey.js';
import { redactRedisUrls, type RedisTarget } from './redisUrl.js';

/**
 * The BullMQ queue every sweep uses (jobs of different sweeps differ by id). Workers that do not
 * check a job's engine listened on another name, so they never see these jobs.
 */
export const QUEUE_NAME = 'sweep-jobs';
/** Key prefix in Redis, so kancil's keys are easy to find next to other BullMQ users'. */
export const QUEUE_PREFIX = 'kancil';
/** How long finished jobs (results and failure reasons) stay in Redis for a re-gather: 7 days. */
export const KEEP_SECONDS = 7 * 86_400;

/** The data of one queued job. */
export interface QueueJobData {
  /** The job as the embedded pool would run it, with the config's YAML text (configText) so a worker needs no copy of it. */
  readonly job: SweepJob;
  /** The engine of the enqueuing side; a worker of another engine hands the job back. */
  readonly engine: EngineId;
  /** The data and latency files the job reads, as the enqueuing side saw them; a worker checks its own copies against them. */
  readonly files: readonly FileIdentity[];
  /** The strategy's source file and its hash, checked the same way. */
  readonly plugin: { readonly path: string; readonly hash: string };
  /** The job in words for logs: the point, its window and recording. */
  readonly label: string;
}

/** Which worker ran a job: enough to find its machine, its process and its log. */
export interface RanBy {
  readonly host: string;
  readonly pid: number;
  /** The engine hash (the job's own, or the worker would have handed it back). */
  readonly engine: string;
}

/** What a finished job holds: the answer's text and who produced it. */
export interface QueueJobResult {
  /** The JSON of the job's figures (SweepAnswer.result). */
  readonly result: string;
  readonly ranBy: RanBy;
}

/** A worker in words for reports: `host pid 123`. */
export function ranByText(r: RanBy): string {
  return `${r.host} pid ${r.pid}`;
}

/** ioredis options for a target (BullMQ opens its own connections with them). */
export function redisOptions(t: RedisTarget): RedisOptions {
  return { host: t.host, port: t.port, db: t.db, ...(t.username !== undefined ? { username: t.username } : {}), ...(t.password !== undefined ? { password: t.password } : {}), ...(t.tls ? { tls: {} } : {}) };
}

/**
 * Connects once and pings, without retrying: an unreachable or refusing Redis is a NetworkError
 * naming the (redacted) URL within `timeoutMs`, rather than a client that retries forever.
 */
export async function checkReachable(t: RedisTarget, timeoutMs = 5000): Promise<void> {
  const client = new Redis({ ...redisOptions(t), lazyConnect: true, connectTimeout: timeoutMs, maxRetriesPerRequest: 0, retryStrategy: () => null, enableOfflineQueue: false });
  // The socket's error (ECONNREFUSED, ENOTFOUND) says more than the "Connection is closed" connect() rejects with.
  let cause: string | undefined;
  client.on('error', (err: Error) => (cause ??= err.message));
  try {
    await client.connect();
    await client.ping();
  } catch (err) {
    throw new NetworkError(t.display, `cannot reach Redis: ${redactRedisUrls(cause ?? (err instanceof Error ? err.message : String(err)))}`);
  } finally {
    client.disconnect();
  }
}

/** A job's words for logs and failure lists. */
export function jobLabel(job: SweepJob, recordingFile: string | undefined): string {
  const w = job.window;
  const window = w === undefined ? '' : ` window ${w.start === undefined ? 'start' : new Date(w.start).toISOString()}..${w.end === undefined ? 'end' : new Date(w.end).toISOString()}`;
  return `${job.strategy} ${JSON.stringify(job.params)}${window}${recordingFile === undefined ? '' : ` recording ${recordingFile}`}`;
}
