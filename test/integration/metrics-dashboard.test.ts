/**
 * The shipped Grafana dashboard against a running console: a live run trading on the sandbox
 * (taker fills, resting orders, cancels), with a daily loss limit, an open-order cap it runs
 * into, known weight limits and a webhook channel, whose streams the exchange drops once, serves
 * /metrics; every series the dashboard queries must be in it, and the example Prometheus config
 * must scrape that path.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { runCommand } from '../../src/cli/run.js';
import { resolveSandboxConfig, startSandbox, type RunningSandbox } from '../../src/sandbox/index.js';
import { ALICE, logSink, sandboxDoc, waitFor } from './pipeline-harness.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..', '..');
let sandbox: RunningSandbox;
let hook: http.Server;
let dir: string;
const TOKEN = 'metrics-test-token-0123456789abcdef';

/** Metric names a PromQL expression reads (ours and prom-client's process metrics). */
function seriesOf(expr: string): string[] {
  return [...expr.matchAll(/\b((?:kancil|process|nodejs)_[a-z0-9_]+)\b/g)].map((m) => m[1] as string);
}

/** Every `expr` and query of a dashboard, at any depth. */
function queries(node: unknown, out: string[] = []): string[] {
  if (Array.isArray(node)) for (const x of node) queries(x, out);
  else if (typeof node === 'object' && node !== null) {
    for (const [k, v] of Object.entries(node)) {
      if ((k === 'expr' || k === 'query') && typeof v === 'string') out.push(v);
      else queries(v, out);
    }
  }
  return out;
}

beforeAll(async () => {
  sandbox = await startSandbox(resolveSandboxConfig(sandboxDoc({ synthetic: true }), 'metrics-dashboard', process.cwd()));
  hook = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(204).end());
  });
  await new Promise<void>((r) => hook.listen(0, '127.0.0.1', r));
  dir = mkdtempSync(path.join(tmpdir(), 'kancil-metrics-'));
});

afterAll(async () => {
  await sandbox.stop();
  await new Promise<void>((r) => hook.close(() => r()));
  rmSync(dir, { recursive: true, force: true });
});

describe('the Grafana dashboard and the Prometheus example', () => {
  it('queries only series a running console serves, at the path the scrape config uses', async () => {
    const file = path.join(dir, 'run.yaml');
    writeFileSync(
      file,
      stringify({
        mode: 'live',
        name: 'dash',
        exchange: { base_url: sandbox.urls.base_url, market_url: sandbox.urls.market_url, stream_url: sandbox.urls.stream_url, ws_api_url: sandbox.urls.ws_api_url, weightLimits: { '1M': 6000 } },
        strategies: [{ name: 'churn', plugin: path.join(here, 'pipeline-restart-plugin.ts'), symbols: ['BTC_IDR'], budget: { IDR: '100000000000', BTC: '10' } }],
        risk: { mode: 'reject', dailyLossLimit: '1000000000', maxOpenOrders: 2 },
        storage: { path: path.join(dir, 'ledger.db') },
        run: { timerMs: 100, statusIntervalSec: 60, cancelOnShutdown: true },
        logging: { level: 'info' },
        console: { port: 0, notify: { webhook: true, events: ['fill'] } },
      }),
    );
    let out = '';
    const logs: string[] = [];
    const hookUrl = `http://127.0.0.1:${(hook.address() as AddressInfo).port}/hook`;
    const done = runCommand([file, '--duration', '90'], { stdout: (t) => (out += t), stderr: (t) => (out += t), env: { KANCIL_API_KEY: ALICE.apiKey, KANCIL_API_SECRET: ALICE.secret, KANCIL_WEBHOOK_URL: hookUrl, KANCIL_CONSOLE_TOKEN: TOKEN } }, logSink(logs));
    const dashboard = JSON.parse(readFileSync(path.join(root, 'deploy/grafana/kancil.json'), 'utf8')) as unknown;
    const wanted = [...new Set(queries(dashboard).flatMap(seriesOf))].sort();
    let text = '';
    let base = '';
    const auth = { authorization: `Bearer ${TOKEN}` };
    const has = (name: string): boolean => new RegExp(`^${name}(\\{| )`, 'm').test(text);
    try {
      expect(await waitFor(() => /console: (http:\/\/127\.0\.0\.1:\d+)\//.test(out), 30_000), out).toBe(true);
      base = /console: (http:\/\/127\.0\.0\.1:\d+)\//.exec(out)?.[1] ?? '';
      const scrape = async (): Promise<string> => (text = await (await fetch(`${base}/metrics`, { headers: auth })).text());
      // Fills, round trips and a position take a few timers. Disconnects, reconnects, resyncs,
      // stream states and rejections (orders refused while the run reconciles) need an outage.
      expect(await waitFor(() => /"msg":"running"/.test(logs.join('')), 30_000)).toBe(true);
      await new Promise((r) => setTimeout(r, 1000));
      sandbox.faults.dropConnections();
      for (let i = 0; i < 120 && !(await scrape(), wanted.every(has)); i++) await new Promise((r) => setTimeout(r, 250));
    } finally {
      if (base !== '') await fetch(`${base}/api/stop`, { method: 'POST', headers: auth });
      await done;
    }
    expect(wanted.filter((n) => !has(n)), text.slice(0, 4000)).toEqual([]);
    expect(wanted.length).toBeGreaterThan(30);
    const prom = parse(readFileSync(path.join(root, 'deploy/prometheus.yml'), 'utf8')) as { scrape_configs: { job_name: string; metrics_path: string; static_configs: { targets: string[] }[] }[] };
    const job = prom.scrape_configs.find((j) => j.job_name === 'kancil');
    expect(job?.metrics_path).toBe('/metrics');
    expect(job?.static_configs[0]?.targets).toEqual(['127.0.0.1:8321']);
  }, 120_000);
});
