/**
 * Random and adversarial requests into the console (fast-check), written as raw bytes so nothing
 * client-side cleans them up: request targets with stray `%`, dot segments, control and
 * non-ASCII characters; odd methods; Host, Origin, Authorization and Content-Length values from
 * nowhere. The invariants: never a 500 or a dropped answer from a handler, no log of a failed
 * request, nothing journalled or commanded, and the server answers normally afterwards.
 */
import net from 'node:net';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RunFeed } from './feed.js';
import { ConsoleServer } from './server.js';
import { recordingLog, testRun } from './testRun.js';

const TOKEN = 'fuzz-test-token-0123456789abcdef';
const logs: string[] = [];
const run = testRun();
const feed = new RunFeed(run, { tickMs: 3_600_000 });
let server: ConsoleServer;
let port = 0;

beforeAll(async () => {
  feed.start();
  server = await ConsoleServer.start({ run, feed, host: '127.0.0.1', port: 0, token: TOKEN, log: recordingLog(logs), page: () => '<!doctype html><title>x</title>' });
  port = Number(new URL(server.url).port);
});
afterAll(async () => {
  await server.close();
  feed.stop();
});

/** One request on its own connection; resolves with the status line's code (0: closed unanswered). */
function send(bytes: Buffer): Promise<number> {
  return new Promise((resolve) => {
    const s = net.connect(port, '127.0.0.1', () => s.end(bytes));
    let head = '';
    s.setEncoding('latin1');
    s.on('data', (c: string) => (head += c));
    s.on('error', () => undefined);
    s.on('close', () => resolve(Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0)));
  });
}

const segment = fc.oneof(
  fc.constantFrom('api', 'strategies', 'mm', 'halt', 'stop', 'cancel-all', 'events', 'metrics', 'status', '..', '.', '%', '%zz', '%E0%A4%A', '%00', '%2F', '%25', ''),
  fc.string({ maxLength: 12 }),
  fc.string({ unit: 'binary', maxLength: 8 }),
);
const target = fc.oneof(
  fc.array(segment, { maxLength: 6 }).map((s) => `/${s.join('/')}`),
  fc.tuple(fc.array(segment, { maxLength: 4 }), fc.string({ maxLength: 20 })).map(([s, q]) => `/api/${s.join('/')}?limit=${q}`),
  fc.constantFrom('*', 'http://attacker.example/api/halt', '//api/halt', 'api/halt', '', '/api/strategies/%E0%A4%A/halt', '/api/strategies/mm%/reduce'),
);
const method = fc.oneof(fc.constantFrom('GET', 'POST', 'HEAD', 'PUT', 'DELETE', 'OPTIONS', 'PATCH', 'TRACE', 'CONNECT'), fc.stringMatching(/^[A-Z]{1,10}$/));
const header = (name: string, values: fc.Arbitrary<string>): fc.Arbitrary<string> => fc.option(values, { nil: undefined }).map((v) => (v === undefined ? '' : `${name}: ${v}\r\n`));
const request = fc.record({
  method,
  target,
  host: header('Host', fc.oneof(fc.constantFrom('127.0.0.1', 'localhost:1', '[::1]', 'attacker.example', '127.0.0.1.nip.io', ''), fc.string({ maxLength: 30 }))),
  origin: header('Origin', fc.oneof(fc.constantFrom('null', 'http://127.0.0.1', 'http://attacker.example', 'file://'), fc.string({ maxLength: 30 }))),
  auth: header('Authorization', fc.oneof(fc.constantFrom('Bearer', 'Bearer ', `Bearer ${TOKEN.slice(1)}`, 'Basic x'), fc.string({ maxLength: 40 }))),
  length: header('Content-Length', fc.oneof(fc.constantFrom('0', '-1', '99999999999', 'abc', '1e3'), fc.nat({ max: 40 }).map(String))),
  body: fc.string({ maxLength: 40 }),
});

describe('console requests fuzzed', () => {
  it('no input makes a handler fail, commands anything or stops the server answering', async () => {
    const seen = new Map<number, number>();
    await fc.assert(
      fc.asyncProperty(request, async (r) => {
        const head = `${r.method} ${r.target} HTTP/1.1\r\n${r.host}${r.origin}${r.auth}${r.length}Connection: close\r\n\r\n`;
        const status = await send(Buffer.concat([Buffer.from(head, 'latin1'), Buffer.from(r.body)]));
        seen.set(status, (seen.get(status) ?? 0) + 1);
        expect(status === 0 || (status >= 400 && status < 500) || status === 200, `${status} for ${JSON.stringify(head)}`).toBe(true);
      }),
      { numRuns: 300 },
    );
    expect(logs.filter((l) => l.includes('console request failed'))).toEqual([]);
    expect(run.journalled).toEqual([]);
    expect(run.commands).toEqual([]);
    // Still serving: a well-formed read with the token, from an address the fuzzing may have blocked for a while.
    const ok = await send(Buffer.from(`GET /api HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`));
    expect([401, 429]).toContain(ok);
    expect(seen.size).toBeGreaterThan(3);
  }, 120_000);
});
