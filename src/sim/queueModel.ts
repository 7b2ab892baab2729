/**
 * Queue position models: where an own resting order stands in its level's queue after the
 * replayed quantity there shrank. The replay shows only a level's total, so the model decides how
 * much of a decrease came from ahead of the order. Positions are whole quantity units.
 */
import type { QueueModelConfig } from './types.js';

/**
 * Where an own resting order stands after its level shrank (hftbacktest's `QueueModel::depth`).
 * Assumes: the replay shows only each level's total, never individual orders; an own order joined
 * the back of its level (`ahead` = the replayed quantity there when it arrived); a trade at the
 * level consumes `ahead` before the order fills (matching.ts, replayed.ts), so the model decides
 * only the diffs: how much of a decrease came from ahead of the order. It never moves an order
 * nearer the front than the decrease allows, nor behind where it was.
 */
export interface QueueModel {
  /** The replayed quantity ahead of the order after a diff shrank its level from `prev` to `next` units (next < prev, ahead <= prev). */
  aheadAfterShrink(ahead: number, prev: number, next: number): number;
}

/** riskAverse: the decrease comes from behind the order first (hftbacktest's RiskAdverseQueueModel). */
export class RiskAverseQueue implements QueueModel {
  aheadAfterShrink(ahead: number, _prev: number, next: number): number {
    return ahead < next ? ahead : next;
  }
}

/** powerProb n: the decrease comes from behind with probability f(behind) / (f(behind) + f(ahead)), f(x) = x^n (hftbacktest's PowerProbQueueFunc). */
export class PowerProbQueue implements QueueModel {
  constructor(readonly power: number) {}
  aheadAfterShrink(ahead: number, prev: number, next: number): number {
    return aheadAfterShrink(ahead, prev, next, this.power);
  }
}

/** The queue model a config names (default riskAverse); a clear error for anything else. */
export function queueModelOf(config: QueueModelConfig | undefined): QueueModel {
  const qm = config ?? { type: 'riskAverse' };
  if (qm.type === 'riskAverse') return new RiskAverseQueue();
  if (qm.type === 'powerProb') {
    if (!(Number.isInteger(qm.power) && qm.power >= 1 && qm.power <= 10)) throw new RangeError(`queueModel power ${qm.power} must be an integer from 1 to 10`);
    return new PowerProbQueue(qm.power);
  }
  throw new RangeError(`queueModel type ${String((qm as { type: unknown }).type)} must be riskAverse or powerProb`);
}

/**
 * The replayed quantity ahead of an own order after a replayed diff shrank its level from `prev`
 * to `next` units (next < prev, ahead <= prev). `power` 0 is riskAverse: the decrease comes from
 * behind the order first, so it only falls to `next`. `power` n >= 1 is powerProb: the decrease
 * comes from behind with probability f(behind) / (f(behind) + f(ahead)), f(x) = x^n, so on average
 * (1 - that) of it from ahead; whatever the decrease exceeds behind comes from ahead too. The
 * estimate is rounded up to a whole unit (never nearer the front than the model says) and never
 * beyond riskAverse's answer or below 0. f is repeated multiplication, so the result is the same
 * on every platform.
 */
export function aheadAfterShrink(ahead: number, prev: number, next: number, power: number): number {
  const risk = ahead < next ? ahead : next;
  if (power === 0 || ahead === 0) return risk;
  const chg = prev - next;
  const behind = prev - ahead;
  const fa = pow(ahead, power);
  const fb = pow(behind, power);
  const pBehind = fb / (fa + fb);
  const over = behind - pBehind * chg;
  const est = Math.ceil(ahead - (1 - pBehind) * chg + (over < 0 ? over : 0));
  return est < 0 ? 0 : est < risk ? est : risk;
}

/** x^n for a small positive integer n, by multiplication. */
function pow(x: number, n: number): number {
  let r = x;
  for (let i = 1; i < n; i++) r *= x;
  return r;
}
