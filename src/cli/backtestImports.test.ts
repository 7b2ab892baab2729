/**
 * What `kancil backtest` loads at start: every module costs start-up CPU on every run, so packages
 * only some runs need (the queue client, pretty logs, the progress bar, the console's metrics,
 * RxJS) are loaded when used. A child process imports the command module and lists the CommonJS
 * packages it loaded (ES modules do not show in require.cache; these packages are all CommonJS).
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../strategy/loader.js';

describe('kancil backtest start-up', () => {
  it('loads neither BullMQ, ioredis, pino-pretty, cli-progress, prom-client nor RxJS', () => {
    const script = `
import { createRequire } from 'node:module';
await import(${JSON.stringify(path.join(PROJECT_ROOT, 'src/cli/backtest.ts'))});
const loaded = Object.keys(createRequire(import.meta.url).cache).map((k) => /node_modules\\/((?:@[^/]+\\/)?[^/]+)/.exec(k)?.[1]).filter((k) => k !== undefined);
console.log(JSON.stringify([...new Set(loaded)]));
`;
    const out = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: PROJECT_ROOT, encoding: 'utf8' });
    const loaded = JSON.parse(out) as string[];
    // The check sees CommonJS packages at all (yaml is one, and the command needs it).
    expect(loaded).toContain('yaml');
    for (const p of ['bullmq', 'ioredis', 'pino-pretty', 'cli-progress', 'prom-client', 'rxjs']) expect(loaded, p).not.toContain(p);
  });
});
