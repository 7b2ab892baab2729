/**
 * `kancil record --config <yaml>`: records streams until SIGINT/SIGTERM, then flushes every
 * buffered line and exits 0. Registered in the CLI by src/cli.
 */
import { pino } from 'pino';
import { OpenClient } from '../exchange/open/OpenClient.js';
import { loadRecordConfig } from './config.js';
import { Recorder } from './recorder.js';

/** Usage text. */
export const RECORD_USAGE = 'usage: kancil record --config <recorder.yaml>';

/** Runs the record command with its arguments (after `record`); resolves with the exit code. */
export async function recordCommand(argv: readonly string[]): Promise<number> {
  const i = argv.indexOf('--config');
  const file = i >= 0 ? argv[i + 1] : undefined;
  if (file === undefined) {
    process.stderr.write(`${RECORD_USAGE}\n`);
    return 2;
  }
  const cfg = loadRecordConfig(file);
  const logger = pino({ name: 'kancil.record' }, pino.destination(2));
  const client = new OpenClient({ baseUrl: toHttp(cfg.urls.base_url), marketUrl: toHttp(cfg.urls.market_url), depthUrl: toHttp(cfg.urls.depth_url) });
  const recorder = new Recorder(cfg, { snapshots: client, logger });
  recorder.start();
  logger.info({ out: cfg.out, symbols: cfg.symbols.map((s) => s.symbol) }, 'recording; SIGINT or SIGTERM stops and flushes');
  await new Promise<void>((resolve) => {
    const stop = (): void => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
  await recorder.stop();
  logger.info({ files: recorder.writer.files, lines: recorder.writer.lines }, 'recording flushed');
  return 0;
}

function toHttp(u: string): string {
  return u.replace(/^ws/, 'http');
}
