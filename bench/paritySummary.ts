/**
 * Means over parity runs: reads the JSON files a parity bench wrote with `PARITY_DUMP=dir` and
 * prints, per strategy and mode, the mean and standard error of filled quantity, taker share, fees
 * and PnL over the runs (each dump holds two live runs, one paper, the backtest on the sandbox's one
 * clock and on two clocks), and each mode's bias: its mean minus live's, as a share of live's mean
 * and in standard errors of that difference (both means' errors combined). One run against one run
 * cannot tell a bias from the run-to-run noise (src/backtest/README.md, "Parity"); this can.
 *
 *   npx tsx bench/paritySummary.ts <dump dir>
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { Decimal } from '../src/core/decimal.js';
import { figuresOf, type Figures, type ModeOutcome, type ParityFill } from './parityResults.js';
import { trimmed } from './parityRuns.js';

/** A run's outcome as a dump holds it (its Decimals as text). */
interface DumpedOutcome {
  readonly intents: string[];
  readonly placedAt: number[];
  readonly fills: (Omit<ParityFill, 'price' | 'qty' | 'quoteQty' | 'commission'> & { price: string; qty: string; quoteQty: string; commission: string })[];
}

/** The parts of a dump read here. */
interface Dump {
  readonly case: string;
  readonly window: { readonly startMs: number; readonly endMs: number };
  readonly mark: string;
  readonly live: { readonly outcome: DumpedOutcome };
  readonly again?: { readonly outcome: DumpedOutcome };
  readonly paper: { readonly outcome: DumpedOutcome };
  readonly backtest: { readonly outcome: DumpedOutcome };
  readonly backtestTwoClocks?: { readonly outcome: DumpedOutcome; readonly mark: string };
}

/** The modes summarised, in table order. */
const MODES = ['live', 'paper', 'backtest', 'backtest, two clocks'] as const;
type Mode = (typeof MODES)[number];

/** The figures summarised, with how each is printed. */
const FIGS = [
  { key: 'filledQty', name: 'filled qty', fmt: (x: number) => x.toFixed(4) },
  { key: 'takerShare', name: 'taker share', fmt: (x: number) => `${(x * 100).toFixed(1)} %` },
  { key: 'fees', name: 'fees', fmt: (x: number) => x.toFixed(3) },
  { key: 'pnl', name: 'PnL', fmt: (x: number) => x.toFixed(3) },
] as const satisfies readonly { key: keyof Figures; name: string; fmt: (x: number) => string }[];

function revive(o: DumpedOutcome): ModeOutcome {
  return { intents: o.intents, placedAt: o.placedAt, fills: o.fills.map((f) => ({ ...f, price: new Decimal(f.price), qty: new Decimal(f.qty), quoteQty: new Decimal(f.quoteQty), commission: new Decimal(f.commission) })) };
}

/** Mean and standard error of the mean (0 with one value). */
function meanSe(xs: readonly number[]): { mean: number; se: number } {
  const n = xs.length;
  const mean = xs.reduce((a, b) => a + b, 0) / n;
  const sd = n > 1 ? Math.sqrt(xs.reduce((a, b) => a + (b - mean) ** 2, 0) / (n - 1)) : 0;
  return { mean, se: sd / Math.sqrt(n) };
}

/** The summary table's lines for the dumps in `dir`. */
export function paritySummary(dir: string): string[] {
  const byCase = new Map<string, Map<Mode, Figures[]>>();
  for (const f of readdirSync(dir).filter((x) => x.endsWith('.json')).sort()) {
    const d = JSON.parse(readFileSync(path.join(dir, f), 'utf8')) as Dump;
    const runs = byCase.get(d.case) ?? new Map<Mode, Figures[]>();
    byCase.set(d.case, runs);
    const add = (mode: Mode, o: DumpedOutcome | undefined, mark: string): void => {
      if (o === undefined) return;
      runs.set(mode, [...(runs.get(mode) ?? []), figuresOf(trimmed(revive(o), d.window.startMs, d.window.endMs), new Decimal(mark))]);
    };
    add('live', d.live.outcome, d.mark);
    add('live', d.again?.outcome, d.mark);
    add('paper', d.paper.outcome, d.mark);
    add('backtest', d.backtest.outcome, d.mark);
    add('backtest, two clocks', d.backtestTwoClocks?.outcome, d.backtestTwoClocks?.mark ?? d.mark);
  }
  const lines = [
    `| strategy | mode | runs | ${FIGS.map((g) => `${g.name} (mean ± se)`).join(' | ')} | ${FIGS.map((g) => `${g.name} bias`).join(' | ')} |`,
    `|---|---|---|${FIGS.map(() => '---').join('|')}|${FIGS.map(() => '---').join('|')}|`,
  ];
  for (const [name, runs] of byCase) {
    const live = runs.get('live') ?? [];
    for (const mode of MODES) {
      const xs = runs.get(mode);
      if (xs === undefined) continue;
      const cells = FIGS.map((g) => {
        const m = meanSe(xs.map((x) => x[g.key]));
        return `${g.fmt(m.mean)} ± ${g.fmt(m.se)}`;
      });
      const bias = FIGS.map((g) => {
        if (mode === 'live') return '';
        const m = meanSe(xs.map((x) => x[g.key]));
        const l = meanSe(live.map((x) => x[g.key]));
        const diff = m.mean - l.mean;
        const se = Math.sqrt(m.se ** 2 + l.se ** 2);
        // A share's bias in points; the others as a share of live's mean.
        const size = g.key === 'takerShare' ? `${(diff * 100).toFixed(1)} pp` : l.mean === 0 ? (diff === 0 ? '0' : 'n/a') : `${((diff / Math.abs(l.mean)) * 100).toFixed(1)} %`;
        return se === 0 ? size : `${size} (${(diff / se).toFixed(1)} se)`;
      });
      lines.push(`| ${name} | ${mode} | ${xs.length} | ${cells.join(' | ')} | ${bias.join(' | ')} |`);
    }
  }
  return lines;
}

if (process.argv[1] !== undefined && import.meta.url.endsWith(path.basename(process.argv[1]))) {
  const dir = process.argv[2];
  if (dir === undefined) {
    process.stderr.write('usage: npx tsx bench/paritySummary.ts <dump dir>\n');
    process.exit(2);
  }
  process.stdout.write(`${paritySummary(dir).join('\n')}\n`);
}
