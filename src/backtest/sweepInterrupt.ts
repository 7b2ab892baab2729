/**
 * An interrupted sweep (Ctrl-C): the points that finished are ranked and written as usual, and a
 * line says how far it got, so a reader never takes a partial table for the whole grid.
 */
import type { PointOutcome } from './sweepPoints.js';
import type { WalkForwardResult } from './sweepWalkForward.js';

/** The points that ran to the end, each with its place in the grid (or trial order): all of them unless interrupted. */
export function finishedPoints(outcomes: readonly PointOutcome[], interrupted: boolean): (PointOutcome & { index: number })[] {
  return outcomes.map((o, index) => ({ ...o, index })).filter((o) => !interrupted || o.unfinished !== true);
}

/** How far an interrupted sweep got (its walk-forward as run, before {@link markUnrunWindows}); undefined when it was not interrupted. */
export function interruptedLine(s: { points: number; planned: number; tpe: boolean; pointsCut: boolean; walkForward?: { result: WalkForwardResult | undefined; cut: boolean } }): string | undefined {
  const wf = s.walkForward;
  if (!s.pointsCut && wf?.cut !== true) return undefined;
  const what = s.tpe ? 'trials' : 'points';
  const windows = wf === undefined ? '' : wf.result === undefined ? '; walk-forward not run' : `; walk-forward: ${doneWindows(wf.result)} of ${wf.result.windows.length} windows done`;
  return `interrupted: ${s.points} of ${s.planned} ${what} run${windows}`;
}

/** What a job cut off or never started reads as (sweepWalkForward.ts). */
const NO_ANSWER = 'no answer';

function doneWindows(r: WalkForwardResult): number {
  return r.windows.filter((w) => w.outOfSampleMetrics !== undefined || (w.error !== undefined && !w.error.includes(NO_ANSWER))).length;
}

/** An interrupted walk-forward's windows that did not run say so (rather than "no answer"). */
export function markUnrunWindows(r: WalkForwardResult): WalkForwardResult {
  return { ...r, windows: r.windows.map((w) => (w.error?.includes(NO_ANSWER) === true ? { ...w, error: 'not run: interrupted' } : w)) };
}
