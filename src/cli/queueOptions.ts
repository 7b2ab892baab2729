/** The queue options of `kancil backtest`, checked before anything is read or connected. */
import { ValidationError } from '../core/errors.js';
import { addSecretValues } from '../core/secretScrub.js';
import { resolveRedisTarget, type RedisTarget } from '../backtest/queue/redisUrl.js';

/**
 * The Redis of `--queue` (its password, when not in the URL, from KANCIL_REDIS_URL or
 * KANCIL_REDIS_PASSWORD_FILE), or undefined for the embedded pool; a ValidationError for a wrong combination.
 */
export function queueTarget(values: { sweep?: string; queue?: string; gather?: boolean; workers?: string; status?: boolean; cancel?: boolean }, env: Readonly<Record<string, string | undefined>> = {}): RedisTarget | undefined {
  const only = (['gather', 'status', 'cancel'] as const).filter((k) => values[k] === true);
  if (values.queue === undefined) {
    if (only[0] !== undefined) throw new ValidationError(`--${only[0]}`, true, `needs --queue (and --sweep): it ${only[0] === 'gather' ? 'collects' : only[0] === 'status' ? 'reports on' : 'cancels'} a queue sweep`);
    return undefined;
  }
  if (only.length > 1) throw new ValidationError(`--${only[1] as string}`, true, `cannot go with --${only[0] as string}: pick one`);
  const target = resolveRedisTarget(values.queue, env) as RedisTarget;
  // However it was given (URL, environment, file), the password is scrubbed from all output.
  addSecretValues([target.password]);
  if (values.sweep === undefined) throw new ValidationError('--queue', target.display, 'needs --sweep: the queue runs the points of a sweep');
  if (values.workers !== undefined) throw new ValidationError('--workers', values.workers, 'is for the embedded pool; with --queue, start `kancil worker --concurrency N` processes');
  return target;
}
