/**
 * `kancil record --config <yaml>`: records streams until SIGINT/SIGTERM, then flushes every
 * buffered line and exits 0. Registered in cli/commands.ts.
 */
import { pino } from 'pino';
import { OpenClient } from '../exchange/open/OpenClient.js';
import { loadRecordConfig } from '../record/config.js';
import { accessSync, constants, rmSync, statSync } from 'node:fs';
import { convertCryptofeed, convertKlineCsv, convertNsLines, noEvents, recordingLines, writeRecording } from '../record/importers.js';
import { Recorder } from '../record/recorder.js';
import { writeBinaryRecording } from '../record/binary/writer.js';
import { onClosedPipe } from './closedPipe.js';
import { onStopSignals } from './stopSignals.js';
import type { Command } from './command.js';
import { parseCommandArgs } from './args.js';
import { outputDirProblem } from './outputDir.js';
import path from 'node:path';
import { scrubSecretText } from '../core/secretScrub.js';

/** Usage text. */
export const RECORD_USAGE = [
  'Usage: kancil record --config <recorder.yaml>',
  '       kancil record import --from <ns|cryptofeed|kline-csv|recording> --out <file.rec.gz|file.krb> [--to text|binary] [--symbol S] [--interval 1m] --source <text> --licence <text> <input files...>',
  '         --to binary writes the binary form (exact scaled integers; replays skip the parse); --from recording reads kancil text recordings',
].join('\n');

/** Runs the record command with its arguments (after `record`); resolves with the exit code. */
export async function recordCommand(argv: readonly string[]): Promise<number> {
  if (argv[0] === 'import') return importCommand(argv.slice(1));
  // An option it does not know (a typo of --config) is named, not taken for a missing --config.
  const file = parseCommandArgs(argv, { config: { type: 'string' } }).values.config;
  if (file === undefined) return usage('--config is required');
  const cfg = loadRecordConfig(file);
  const logger = pino({ hooks: { streamWrite: scrubSecretText }, name: 'kancil.record' }, pino.destination(2));
  const client = new OpenClient({ baseUrl: toHttp(cfg.urls.base_url), marketUrl: toHttp(cfg.urls.market_url), depthUrl: toHttp(cfg.urls.depth_url) });
  const recorder = new Recorder(cfg, { snapshots: client, logger });
  recorder.start();
  logger.info({ out: cfg.out, symbols: cfg.symbols.map((s) => s.symbol) }, 'recording; SIGINT or SIGTERM stops and flushes');
  // A closed stdout (`kancil record … | head -1`) stops it as a signal does: the files are flushed whole.
  let offSignals: () => void = () => undefined;
  await new Promise<void>((resolve) => {
    let undoClosed: () => void = () => undefined;
    const stop = (): void => {
      undoClosed();
      resolve();
    };
    undoClosed = onClosedPipe(stop);
    // A file that cannot be written (a full disk) stops the recording: the other files are flushed whole.
    void recorder.writer.failed.then(stop);
    // Kept while the files flush: a repeated signal must not cut them short (stopSignals.ts).
    offSignals = onStopSignals(stop);
  });
  try {
    await recorder.stop();
  } finally {
    offSignals();
  }
  logger.info({ files: recorder.writer.files, lines: recorder.writer.lines }, 'recording flushed');
  const failure = recorder.writer.failure;
  if (failure === undefined) return 0;
  process.stderr.write(`kancil record: cannot write ${failure.file} (${failure.error.message}): recording stopped; that file is cut short, the others are whole\n`);
  return 1;
}

/** `kancil record import …`: converts one of the shared-data formats into a recording. */
async function importCommand(argv: readonly string[]): Promise<number> {
  const opts = new Map<string, string>();
  const inputs: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i] as string;
    if (a.startsWith('--')) {
      const v = argv[i + 1];
      if (v === undefined) return usage(`missing value for ${a}`);
      opts.set(a.slice(2), v);
      i++;
    } else inputs.push(a);
  }
  const from = opts.get('from');
  const out = opts.get('out');
  const source = opts.get('source');
  const licence = opts.get('licence');
  if (out === undefined || source === undefined || licence === undefined || inputs.length === 0) return usage('--out, --source, --licence and at least one input are required');
  for (const f of inputs) {
    const bad = inputProblem(f);
    if (bad !== undefined) return usage(`input ${f}: ${bad}`);
  }
  const outDir = path.dirname(path.resolve(out));
  const problem = outputDirProblem(outDir);
  if (problem !== undefined) return usage(`--out=${out}: its folder ${outDir} ${problem}`);
  const symbol = opts.get('symbol');
  let lines: AsyncIterable<string>;
  switch (from) {
    case 'ns':
      lines = convertNsLines(inputs, symbol?.toLowerCase());
      break;
    case 'cryptofeed':
      if (inputs.length !== 1) return usage('cryptofeed takes one input');
      lines = convertCryptofeed(inputs[0] as string);
      break;
    case 'recording':
      lines = recordingLines(inputs);
      break;
    case 'kline-csv':
      if (symbol === undefined || inputs.length !== 1) return usage('kline-csv takes --symbol and one input');
      lines = convertKlineCsv(inputs[0] as string, symbol, opts.get('interval') ?? '1m');
      break;
    default:
      return usage(`unknown --from ${String(from)}`);
  }
  const to = opts.get('to') ?? 'text';
  if (to === 'binary') {
    let st;
    try {
      st = await writeBinaryRecording(out, { source, licence, importedFrom: inputs }, lines);
    } catch (e) {
      rmSync(out, { force: true });
      throw e;
    }
    if (st.lines === 0) {
      rmSync(out, { force: true });
      throw noEvents(inputs);
    }
    process.stdout.write(`${JSON.stringify({ out, lines: st.lines, numeric: st.numeric, text: st.text, bytes: st.bytes })}\n`);
    return 0;
  }
  if (to !== 'text') return usage(`unknown --to ${to}`);
  const n = await writeRecording(out, { source, licence, importedFrom: inputs }, lines);
  process.stdout.write(`${JSON.stringify({ out, lines: n })}\n`);
  return 0;
}

/** Why an input file cannot be imported, or undefined: found before the output file is created, not as a reader's stack trace. */
function inputProblem(file: string): string | undefined {
  try {
    if (statSync(file).isDirectory()) return 'is a folder, not a file';
    accessSync(file, constants.R_OK);
    return undefined;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return code === 'ENOENT' ? 'no such file' : `cannot be read (${code ?? String(err)})`;
  }
}

function usage(problem: string): number {
  process.stderr.write(`${problem}\n${RECORD_USAGE}\n`);
  return 2;
}

function toHttp(u: string): string {
  return u.replace(/^ws/, 'http');
}

/** The `kancil record` subcommand for the CLI registry. */
export const command: Command = { usage: RECORD_USAGE, run: (argv) => recordCommand(argv) };
