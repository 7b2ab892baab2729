/**
 * The tree-structured Parzen estimator (Bergstra, Bardenet, Bengio and Kégl, 2011) over a finite
 * grid of parameter values, seeded and deterministic: the same seed, space and observed values
 * suggest the same points. After `startup` uniform draws, the trials so far split into the good
 * ones (the best gamma(n) = min(ceil(n / 10), 25), as Optuna's default) and the rest; per
 * parameter, independently (univariate, as Optuna's default), `candidates` values are drawn from
 * the good trials' estimator l and the one maximising l(x) / g(x) against the rest's is taken.
 * A point already tried or pending is drawn again (a backtest repeats exactly, so a rerun would
 * waste a trial); after a few tries a uniform untried point stands in.
 */
import { mulberry32 } from '../core/random.js';
import { categoricalMasses, drawIndex, numericMasses } from './parzen.js';

/** The values of each parameter, in grid order. */
export type TpeSpace = readonly (readonly [string, readonly unknown[]])[];

/** A point tried, as value indices per parameter (space order), and its value (higher is better; null: failed or refused). */
export interface TpeTrial {
  readonly at: readonly number[];
  readonly value: number | null;
}

/** Settings (defaults as Optuna's TPESampler). */
export interface TpeOptions {
  readonly seed: number;
  /** Uniform draws before the model is used (Optuna's n_startup_trials). */
  readonly startup?: number;
  /** Candidates drawn from l per parameter (Optuna's n_ei_candidates). */
  readonly candidates?: number;
}

/** Default startup draws and candidates (Optuna's). */
export const TPE_STARTUP = 10;
export const TPE_CANDIDATES = 24;

/** Redraws of a point already tried before a uniform untried one stands in. */
const REDRAWS = 16;

/** How many trials count as good among n (Optuna's default_gamma). */
export function goodCount(n: number): number {
  return Math.min(Math.ceil(0.1 * n), 25);
}

/** A sampler over one space; `suggest` draws from its own seeded stream, so calls must come in the same order to repeat. */
export class TpeSampler {
  private readonly rnd: () => number;
  private readonly total: number;
  private readonly numeric: (readonly number[] | undefined)[];

  constructor(
    private readonly space: TpeSpace,
    private readonly opts: TpeOptions,
  ) {
    this.rnd = mulberry32(opts.seed);
    this.total = space.reduce((n, [, vs]) => n * vs.length, 1);
    // A parameter whose values are all numbers, ascending and distinct, is searched by value; any other by category.
    this.numeric = space.map(([, vs]) => (vs.every((v, i) => typeof v === 'number' && (i === 0 || v > (vs[i - 1] as number))) ? (vs as readonly number[]) : undefined));
  }

  /** Size of the space. */
  get size(): number {
    return this.total;
  }

  /** The next point as value indices, given the trials so far and points already taken; undefined when every point is taken. */
  suggest(trials: readonly TpeTrial[], taken: ReadonlySet<string>): number[] | undefined {
    if (taken.size >= this.total) return undefined;
    const model = trials.length >= (this.opts.startup ?? TPE_STARTUP);
    for (let i = 0; i < REDRAWS; i++) {
      const at = model ? this.fromModel(trials) : this.uniform();
      if (!taken.has(at.join(','))) return at;
    }
    return this.untried(taken);
  }

  private uniform(): number[] {
    return this.space.map(([, vs]) => Math.floor(this.rnd() * vs.length));
  }

  /** Any untried point, drawn uniformly among them (by rejection while they are many, else by listing). */
  private untried(taken: ReadonlySet<string>): number[] | undefined {
    if (taken.size * 2 < this.total) {
      for (;;) {
        const at = this.uniform();
        if (!taken.has(at.join(','))) return at;
      }
    }
    const free: number[][] = [];
    for (let k = 0; k < this.total; k++) {
      const at = this.decode(k);
      if (!taken.has(at.join(','))) free.push(at);
    }
    return free[Math.floor(this.rnd() * free.length)];
  }

  private decode(k: number): number[] {
    const at = new Array<number>(this.space.length).fill(0);
    let rest = k;
    for (let p = this.space.length - 1; p >= 0; p--) {
      const n = (this.space[p] as readonly [string, readonly unknown[]])[1].length;
      at[p] = rest % n;
      rest = Math.floor(rest / n);
    }
    return at;
  }

  private fromModel(trials: readonly TpeTrial[]): number[] {
    // Best first; unavailable values last; ties keep trial order so the split is deterministic.
    const order = trials.map((t, i) => ({ t, i })).sort((a, b) => (a.t.value === b.t.value ? a.i - b.i : a.t.value === null ? 1 : b.t.value === null ? -1 : b.t.value - a.t.value));
    const nGood = goodCount(trials.length);
    const good = order.slice(0, nGood).filter((x) => x.t.value !== null).sort((a, b) => a.i - b.i).map((x) => x.t);
    const goodSet = new Set(good);
    const bad = trials.filter((t) => !goodSet.has(t));
    return this.space.map(([, vs], p) => {
      const l = this.masses(p, vs.length, good.map((t) => t.at[p] as number));
      const g = this.masses(p, vs.length, bad.map((t) => t.at[p] as number));
      let best = -1;
      let bestScore = -Infinity;
      for (let c = 0; c < (this.opts.candidates ?? TPE_CANDIDATES); c++) {
        const j = drawIndex(l, this.rnd());
        const score = Math.log(l[j] as number) - Math.log(g[j] as number);
        if (score > bestScore) {
          bestScore = score;
          best = j;
        }
      }
      return best;
    });
  }

  private masses(p: number, count: number, observed: readonly number[]): number[] {
    const values = this.numeric[p];
    return values === undefined ? categoricalMasses(count, observed) : numericMasses(values, observed.map((j) => values[j] as number));
  }
}

/** The point of `space` at value indices `at`, keys in space order. */
export function pointAt(space: TpeSpace, at: readonly number[]): Record<string, unknown> {
  return Object.fromEntries(space.map(([k, vs], p) => [k, vs[at[p] as number]]));
}
