/**
 * A sweep searched by TPE (`search: tpe` in the grid): points run in batches of `batch`, each
 * batch suggested by the model from every result before it (tpe.ts), until `trials` points ran,
 * the grid is exhausted, or `patience` trials in a row did not beat the best so far. The batch
 * size, not the number of workers, fixes which points are tried, so a seeded search repeats on
 * any machine. A point the strategy refuses is skipped and listed, and told to the model as a
 * failure (so it learns to avoid it) without counting as a trial.
 */
import type { PointOutcome } from './sweepPoints.js';
import { TpeSampler, pointAt, type TpeSpace, type TpeTrial } from './tpe.js';

/** The search settings of a grid. */
export interface TpeSettings {
  readonly trials: number;
  readonly seed: number;
  readonly batch: number;
  readonly startup?: number;
  readonly patience?: number;
}

/** Default points per batch: enough to keep a few cores busy, few enough for the model to learn between batches. */
export const TPE_BATCH = 4;

/** How the search went, for the reports. */
export interface SearchNote {
  readonly method: 'tpe';
  readonly seed: number;
  readonly batch: number;
  /** Points run (refused ones not counted). */
  readonly trials: number;
  /** Why it stopped before `trials`, when it did. */
  readonly stopped?: string;
}

/** What the search needs from the sweep: check a point, run a batch, value an outcome (higher is better; null: failed, or no candidate). */
export interface TpeHooks {
  readonly refusal: (point: Record<string, unknown>) => string | undefined;
  readonly runPoints: (points: readonly Record<string, unknown>[]) => Promise<PointOutcome[]>;
  readonly valueOf: (o: PointOutcome) => number | null;
  /** True once the sweep is interrupted: no further batch is suggested. */
  readonly halted?: () => boolean;
}

/** Refused points tolerated per trial asked for, before the search gives up on the space. */
const MAX_REFUSED_PER_TRIAL = 10;

/** Runs the search; the points in the order run, their outcomes, the refused points and how it went. */
export async function tpeSearch(space: TpeSpace, s: TpeSettings, hooks: TpeHooks): Promise<{ points: Record<string, unknown>[]; outcomes: PointOutcome[]; skipped: { params: Record<string, unknown>; reason: string }[]; note: SearchNote }> {
  const sampler = new TpeSampler(space, { seed: s.seed, ...(s.startup !== undefined ? { startup: s.startup } : {}) });
  const history: TpeTrial[] = [];
  const taken = new Set<string>();
  const points: Record<string, unknown>[] = [];
  const outcomes: PointOutcome[] = [];
  const skipped: { params: Record<string, unknown>; reason: string }[] = [];
  let best: number | null = null;
  let stale = 0;
  let stopped: string | undefined;
  while (points.length < s.trials && stopped === undefined && hooks.halted?.() !== true) {
    const batch: { at: number[]; point: Record<string, unknown> }[] = [];
    while (batch.length < Math.min(s.batch, s.trials - points.length)) {
      const at = sampler.suggest(history, taken);
      if (at === undefined) break;
      taken.add(at.join(','));
      const point = pointAt(space, at);
      const reason = hooks.refusal(point);
      if (reason === undefined) batch.push({ at, point });
      else {
        skipped.push({ params: point, reason });
        history.push({ at, value: null });
        if (skipped.length > MAX_REFUSED_PER_TRIAL * s.trials) break;
      }
    }
    if (batch.length === 0) {
      stopped = taken.size >= sampler.size ? `every point of the grid was tried (${sampler.size})` : `the strategy refused ${skipped.length} suggested points`;
      break;
    }
    const ran = await hooks.runPoints(batch.map((b) => b.point));
    ran.forEach((o, i) => {
      const value = hooks.valueOf(o);
      history.push({ at: (batch[i] as { at: number[] }).at, value });
      points.push(o.params);
      outcomes.push(o);
      if (value !== null && (best === null || value > best)) {
        best = value;
        stale = 0;
      } else stale++;
      if (stopped === undefined && s.patience !== undefined && stale >= s.patience) {
        // No value at all (every point's objective n/a or under minTrades) is a different story from a plateau.
        const none = best === null ? '; no trial had a value of the objective (unavailable, or under minTrades)' : '';
        stopped = `${s.patience} trials in a row without improvement (patience), after trial ${points.length}${none}`;
      }
    });
  }
  return { points, outcomes, skipped, note: { method: 'tpe', seed: s.seed, batch: s.batch, trials: points.length, ...(stopped !== undefined ? { stopped } : {}) } };
}

/** The search as a sentence. */
export function searchText(n: SearchNote): string {
  return `TPE search (seed ${n.seed}, batches of ${n.batch}): ${n.trials} trials${n.stopped === undefined ? '' : `; stopped early: ${n.stopped}`}.`;
}
