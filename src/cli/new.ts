/**
 * `kancil new strategy NAME [--dir DIR]`: writes a working strategy (DIR/strategies/NAME.ts), its
 * unit test (DIR/strategies/NAME.test.ts) and a backtest config over the bundled candles
 * (DIR/config/NAME.yaml); DIR defaults to the current folder. Nothing existing is overwritten.
 * Outside kancil's own folder it also writes a package.json marking the folder as ES modules,
 * which TypeScript strategies importing `kancil` need.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ValidationError } from '../core/errors.js';
import { PACKAGE_ROOT } from '../strategy/loader.js';
import { parseCommandArgs } from './args.js';
import { ExitCode, type CliIO, type Command } from './command.js';
import { configFile, strategyFile, testFile } from './newStrategyFiles.js';
import { outputDirProblem } from './outputDir.js';

const USAGE = `Usage: kancil new strategy NAME [--dir DIR]

Writes a working strategy, its unit test and a backtest config to start from:
  DIR/strategies/NAME.ts       the plugin (imports only from 'kancil')
  DIR/strategies/NAME.test.ts  its unit test (npx vitest run strategies/NAME.test.ts)
  DIR/config/NAME.yaml         a backtest over the bundled 1m BTCUSDT candles
Existing files are never overwritten. NAME: lower-case letters, digits and dashes.

Options:
  --dir DIR    project folder (default: the current folder)
  -h, --help   this text`;

async function run(argv: readonly string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, { dir: { type: 'string' }, help: { type: 'boolean', short: 'h' } }, true);
  const [what, name, ...extra] = positionals;
  if (what !== 'strategy' || name === undefined || extra.length > 0) throw new ValidationError('arguments', argv.join(' '), 'expected: new strategy NAME');
  if (!/^[a-z][a-z0-9-]{0,39}$/.test(name)) throw new ValidationError('NAME', name, 'lower-case letters, digits and dashes, starting with a letter (at most 40)');
  const dir = path.resolve(values.dir ?? '.');
  const problem = outputDirProblem(dir);
  if (problem !== undefined) throw new ValidationError('--dir', dir, problem);
  const inKancil = path.resolve(dir) === PACKAGE_ROOT;
  const files = {
    strategy: path.join(dir, 'strategies', `${name}.ts`),
    test: path.join(dir, 'strategies', `${name}.test.ts`),
    config: path.join(dir, 'config', `${name}.yaml`),
  };
  const taken = Object.values(files).filter((f) => existsSync(f));
  if (taken.length > 0) {
    io.stderr(`kancil new: not overwriting ${taken.join(', ')}\n`);
    return ExitCode.FAILED;
  }
  const names = {
    name,
    entry: name.slice(0, 16).replace(/-+$/, ''),
    pluginRef: inKancil ? name : `../strategies/${name}.ts`,
    candles: path.relative(path.dirname(files.config), path.join(PACKAGE_ROOT, 'backtest-data', 'btcusdt-1m-sample.csv.gz')),
  };
  mkdirSync(path.dirname(files.strategy), { recursive: true });
  mkdirSync(path.dirname(files.config), { recursive: true });
  writeFileSync(files.strategy, strategyFile(names));
  writeFileSync(files.test, testFile(names));
  writeFileSync(files.config, configFile(names));
  const written = Object.values(files);
  const pkg = path.join(dir, 'package.json');
  if (!inKancil && !existsSync(pkg)) {
    writeFileSync(pkg, `${JSON.stringify({ name, private: true, type: 'module' }, null, 2)}\n`);
    written.push(pkg);
  }
  io.stdout(`${written.map((f) => `wrote ${f}`).join('\n')}\nnext: npx kancil backtest ${path.relative(process.cwd(), files.config) || files.config}\n`);
  return ExitCode.OK;
}

/** The `new` command. */
export const command: Command = { usage: USAGE, run };
