/**
 * `kancil backtest --rerun result.json`: repeats a run from the record its result.json carries
 * (src/backtest/provenance.ts) and says whether the new result.json is byte-identical. Where it is
 * not, it names the fields that differ and what changed underneath: an input file whose hash is no
 * longer the recorded one, or other code (commit, uncommitted changes).
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runBacktest, writeReports } from '../backtest/Backtest.js';
import { codeVersion } from '../backtest/codeVersion.js';
import { parseBacktestConfig } from '../backtest/config.js';
import { inputChanged, type RunProvenance } from '../backtest/provenance.js';
import { streamsOf } from '../backtest/resultStreams.js';
import { ExitCode, type CliIO } from './command.js';
import { ValidationError } from '../core/errors.js';

/** The provenance of a result.json, or why there is none (said of the file). */
function readProvenance(file: string): { doc: Record<string, unknown>; text: string; prov: RunProvenance } | string {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    return `cannot be read (${(err as Error).message})`;
  }
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (err) {
    return `is not JSON: ${(err as Error).message}`;
  }
  const prov = typeof doc === 'object' && doc !== null ? (doc as { provenance?: RunProvenance }).provenance : undefined;
  if (prov === undefined || typeof prov.configFile !== 'string' || typeof prov.config !== 'object') return 'has no provenance record (not a backtest result.json, or written before results carried one): nothing to repeat';
  return { doc: doc as Record<string, unknown>, text, prov };
}

/** Top-level fields whose JSON differs between two results. */
function differingFields(a: Record<string, unknown>, b: Record<string, unknown>): string[] {
  const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])];
  return keys.filter((k) => JSON.stringify(a[k]) !== JSON.stringify(b[k]));
}

/** What differs in the code between the recorded run and now, if anything. */
function codeChange(then: RunProvenance['kancil'], now: RunProvenance['kancil']): string | undefined {
  const text = (c: RunProvenance['kancil']): string => `${c.version}${c.commit === null ? '' : ` at ${c.commit.slice(0, 12)}`}${c.clean === false ? ' with uncommitted changes' : ''}`;
  if (then.version === now.version && then.commit === now.commit && then.clean === now.clean) return undefined;
  return `code: ${text(then)} then, ${text(now)} now`;
}

/** Runs `--rerun FILE`; `out` is where the new reports go (a temporary folder when not given). */
export async function rerun(file: string, out: string | undefined, io: CliIO): Promise<number> {
  const read = readProvenance(file);
  if (typeof read === 'string') throw new ValidationError('--rerun', file, read);
  const { doc, text, prov } = read;
  const changes = prov.inputs.flatMap((i) => {
    const c = inputChanged(i);
    return c === undefined ? [] : [c];
  });
  const code = codeChange(prov.kancil, codeVersion());
  const cfg = parseBacktestConfig(prov.config, prov.configFile);
  const dir = out ?? mkdtempSync(path.join(os.tmpdir(), 'kancil-rerun-'));
  const result = await runBacktest(cfg, { writeOutput: false });
  const written = writeReports(dir, result);
  streamsOf(result).dispose();
  const again = readFileSync(written.json, 'utf8');
  if (again === text) {
    io.stdout(`rerun of ${file}: byte-identical (${Buffer.byteLength(text)} bytes); new reports in ${dir}\n`);
    return ExitCode.OK;
  }
  const fields = differingFields(doc, JSON.parse(again) as Record<string, unknown>);
  const lines = [`rerun of ${file}: DIFFERS in ${fields.length > 0 ? fields.join(', ') : 'formatting only'}; new reports in ${dir}`];
  for (const c of changes) lines.push(`  input ${c}`);
  if (code !== undefined) lines.push(`  ${code}`);
  if (changes.length === 0 && code === undefined) lines.push('  same inputs and the same code: the run is not deterministic (please report it)');
  io.stdout(`${lines.join('\n')}\n`);
  return ExitCode.FAILED;
}
