/** The queue options of `kancil backtest`, checked before anything is read or connected. */
import { ValidationError } from '../core/errors.js';
import { parseRedisUrl, type RedisTarget } from '../backtest/queue/redisUrl.js';

/** The Redis of `--queue`, or undefined for the embedded pool; a ValidationError for a wrong combination. */
export function queueTarget(values: { sweep?: string; queue?: string; gather?: boolean; workers?: string }): RedisTarget | undefined {
  if (values.queue === undefined) {
    if (values.gather === true) throw new ValidationError('--gather', true, 'needs --queue (and --sweep): it collects a queue sweep');
    return undefined;
  }
  const target = parseRedisUrl(values.queue);
  if (values.sweep === undefined) throw new ValidationError('--queue', target.display, 'needs --sweep: the queue runs the points of a sweep');
  if (values.workers !== undefined) throw new ValidationError('--workers', values.workers, 'is for the embedded pool; with --queue, start `kancil worker --concurrency N` processes');
  return target;
}
