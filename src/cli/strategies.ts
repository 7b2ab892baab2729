/**
 * `kancil strategies [--dir DIR] [--json]`: the strategy plugins a config can name, each with its
 * description and parameters (type, default, description): kancil's own strategies/ and, with
 * --dir (or when the current folder has a strategies/ of its own), that folder's.
 */
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT, loadPlugin, plainErrorAt } from '../strategy/loader.js';
import { pluginInfo, pluginInfoText, type PluginInfo } from '../strategy/pluginInfo.js';
import { parseCommandArgs } from './args.js';
import { ExitCode, type CliIO, type Command } from './command.js';

const USAGE = `Usage: kancil strategies [--dir DIR] [--json]

Lists the strategy plugins with their description and parameters (type, default, description).

Options:
  --dir DIR   also list DIR/strategies (default: ./strategies when the current folder has one)
  --json      machine-readable output
  -h, --help  this text`;

function pluginFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => /\.(ts|js|mjs)$/.test(f) && !/\.(test|bench)\.(ts|js|mjs)$/.test(f))
    .sort()
    .map((f) => path.join(dir, f));
}

async function run(argv: readonly string[], io: CliIO): Promise<number> {
  const { values } = parseCommandArgs(argv, { dir: { type: 'string' }, json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } });
  const dirs = [path.join(PROJECT_ROOT, 'strategies')];
  const extra = path.resolve(values.dir ?? '.', 'strategies');
  if (!dirs.includes(extra) && (values.dir !== undefined || existsSync(extra))) dirs.push(extra);
  const infos: PluginInfo[] = [];
  for (const file of dirs.flatMap(pluginFiles)) {
    const plugin = await loadPlugin(file, path.dirname(file), plainErrorAt(file), []);
    infos.push(pluginInfo(plugin, path.relative(process.cwd(), file) || file));
  }
  io.stdout(values.json ? `${JSON.stringify(infos, null, 2)}\n` : `${pluginInfoText(infos)}\n`);
  return ExitCode.OK;
}

/** The `strategies` command. */
export const command: Command = { usage: USAGE, run };
