/** The queue options of `kancil backtest`, checked before anything is read or connected. */
import { ValidationError } from '../core/errors.js';
import { addSecretValues } from '../core/secretScrub.js';
import { resolveRedisTarget, type RedisTarget } from '../backtest/queue/redisUrl.js';

/**
 * The Redis of `--queue` (its password, when not in the URL, from KANCIL_REDIS_URL or
 * KANCIL_REDIS_PASSWORD_FILE), or undefined for the embedded pool; a ValidationError for a wrong combination.
 */
export function queueTarget(values: { sweep?: string; queue?: string; gather?: boolean; workers?: string }, env: Readonly<Record<string, string | undefined>> = {}): RedisTarget | undefined {
  if (values.queue === undefined) {
    if (values.gather === true) throw new ValidationError('--gather', true, 'needs --queue (and --sweep): it collects a queue sweep');
    return undefined;
  }
  const target = resolveRedisTarget(values.queue, env) as RedisTarget;
  // However it was given (URL, environment, file), the password is scrubbed from all output.
  addSecretValues([target.password]);
  if (values.sweep === undefined) throw new ValidationError('--queue', target.display, 'needs --sweep: the queue runs the points of a sweep');
  if (values.workers !== undefined) throw new ValidationError('--workers', values.workers, 'is for the embedded pool; with --queue, start `kancil worker --concurrency N` processes');
  return target;
}
