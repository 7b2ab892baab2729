/** A market-maker config over two different recordings: the bundled one and its first 2,000 lines. */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync, gzipSync } from 'node:zlib';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/** Writes the shorter recording and the config (no output folder) into `dir`; returns the config's path. */
export function twoRecordingConfig(dir: string): string {
  const bundled = path.join(root, 'backtest-data/btcusdt-sample.ndjson.gz');
  const lines = gunzipSync(readFileSync(bundled)).toString('utf8').split('\n');
  writeFileSync(path.join(dir, 'short.ndjson.gz'), gzipSync(`${lines.slice(0, 2000).join('\n')}\n`));
  const file = path.join(dir, 'mm.yaml');
  writeFileSync(file, readFileSync(path.join(root, 'config/market-maker.yaml'), 'utf8').replace('[../backtest-data/btcusdt-sample.ndjson.gz]', `[${bundled}, short.ndjson.gz]`).replace(/^ {2}output:.*$/m, ''));
  return file;
}
