/**
 * Shared pieces of the pipeline/router integration tests: a sandbox document with an IDR pair and
 * a USDT pair, and a counting reverse proxy that sits in front of a sandbox host so a test can
 * count the requests that really reached the exchange.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { request } from 'undici';
import type { SandboxConfigInput } from '../../src/sandbox/index.js';
import { testFilters } from '../../src/sandbox/test-config.js';

/** Test credentials of the local sandbox only. */
export const ALICE = { id: 'alice', apiKey: 'pipeAliceKey-0123456789abcdef0123456789abcd', secret: 'pipeAliceSecret-0123456789abcdef01234567' } as const;
/** A second account that provides liquidity. */
export const BOB = { id: 'bob', apiKey: 'pipeBobKey-0123456789abcdef0123456789abcdef', secret: 'pipeBobSecret-0123456789abcdef0123456789a' } as const;

/** MAX_NUM_ORDERS of the pipeline sandbox (the sandbox's own tests use the default 50). */
const MAX_ORDERS = 200;

/** Sandbox document: BTC_IDR (legacy-capable) and BTC_USDT, alice and bob, optional synthetic market. */
export function sandboxDoc(opts: { synthetic?: boolean } = {}): SandboxConfigInput {
  const balances = { BTC: '10', USDT: '1000000', IDR: '100000000000' };
  return {
    symbols: [
      { symbol: 'BTC_IDR', type: 1, quotePrecision: 2, filters: testFilters('1', '0.00001', '20000', MAX_ORDERS), lastPrice: '1000000000' },
      { symbol: 'BTC_USDT', type: 1, filters: testFilters('0.01', '0.00001', '5', MAX_ORDERS), lastPrice: '60000' },
    ],
    accounts: [
      { ...ALICE, balances },
      { ...BOB, balances },
    ],
    market: opts.synthetic ? [{ symbol: 'BTC_IDR', synthetic: { seed: 7, midPrice: '1000000000', levels: 10, intervalMs: 50, tradeProbability: 0.3, maxLevelSteps: 50 } }] : [],
  };
}

/** A reverse proxy that counts requests by `METHOD /path` (query excluded). */
export interface CountingProxy {
  readonly url: string;
  count(method: string, path: string): number;
  /** Sends later requests to another origin (an exchange that restarted elsewhere, its state lost). */
  retarget(url: string): void;
  close(): Promise<void>;
}

/**
 * Starts a counting proxy on 127.0.0.1 in front of `target` (an http origin). An upstream failure
 * is answered 502, or with `passDrops` the client's connection is dropped too, so a connection the
 * exchange dropped reaches the client as a drop and not as a 5XX.
 */
export async function countingProxy(first: string, opts: { passDrops?: boolean } = {}): Promise<CountingProxy> {
  let target = first;
  const counts = new Map<string, number>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = req.url ?? '/';
      const key = `${req.method ?? 'GET'} ${url.split('?')[0] ?? url}`;
      counts.set(key, (counts.get(key) ?? 0) + 1);
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string' && k !== 'host' && k !== 'connection') headers[k] = v;
      const body = chunks.length > 0 ? Buffer.concat(chunks) : undefined;
      request(`${target}${url}`, { method: (req.method ?? 'GET') as 'GET', headers, ...(body ? { body } : {}) })
        .then(async (r) => {
          const text = await r.body.text();
          const out: Record<string, string> = {};
          for (const [k, v] of Object.entries(r.headers)) if (typeof v === 'string' && k !== 'content-length' && k !== 'transfer-encoding' && k !== 'connection') out[k] = v;
          res.writeHead(r.statusCode, out);
          res.end(text);
        })
        .catch((err: unknown) => {
          if (opts.passDrops) {
            req.socket.destroy();
            return;
          }
          res.writeHead(502);
          res.end(String(err));
        });
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    count: (method, path) => counts.get(`${method} ${path}`) ?? 0,
    retarget: (url) => {
      target = url;
    },
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

/** Polls `cond` every 20 ms until true or `ms` passes; returns whether it became true. */
export async function waitFor(cond: () => boolean, ms = 5000): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (cond()) return true;
    await new Promise((r) => setTimeout(r, 20));
  }
  return cond();
}

/** A log destination that keeps every line written to it in `into` (for assertions on the run's log). */
export function logSink(into: string[]): Writable {
  return new Writable({
    write(chunk: Buffer, _enc, cb) {
      into.push(chunk.toString());
      cb();
    },
  });
}
