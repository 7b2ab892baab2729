/**
 * The console server against the attacks of docs/security.md: DNS rebinding (Host), cross-site
 * commands and streams (Origin), reads without the token, framing and inline script, floods of
 * connections, streams, bodies and wrong tokens, malformed paths and wrong methods. Raw
 * node:http and net clients so every header and byte is the test's choice.
 */
import { createHash } from 'node:crypto';
import http from 'node:http';
import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { RunFeed } from './feed.js';
import { ConsoleServer, type ConsoleServerOptions } from './server.js';
import { recordingLog, testRun, type TestRun } from './testRun.js';

const TOKEN = 'security-test-token-0123456789';
const AUTH = { authorization: `Bearer ${TOKEN}` };
const logs: string[] = [];
const log = recordingLog(logs);
const running: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of running.splice(0)) await c();
  logs.length = 0;
});

type Extra = Partial<Omit<ConsoleServerOptions, 'run' | 'feed' | 'log'>>;
const PAGE = '<!doctype html><title>x</title><style>b{color:red}</style><script>window.a=1</script><script src-less>window.b=2</script>';

async function start(extra: Extra = {}): Promise<{ run: TestRun; server: ConsoleServer; port: number; feed: RunFeed }> {
  const run = testRun();
  const feed = new RunFeed(run, { tickMs: 3_600_000 });
  feed.start();
  const server = await ConsoleServer.start({ run, feed, host: '127.0.0.1', port: 0, token: TOKEN, log, page: () => PAGE, ...extra });
  running.push(async () => {
    await server.close();
    feed.stop();
  });
  return { run, server, port: Number(new URL(server.url).port), feed };
}

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
}

/** One request with exactly these headers (Host included: node sends the one given). */
function ask(port: number, method: string, path: string, headers: Record<string, string> = {}, body?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method, path, headers: { host: `127.0.0.1:${port}`, ...headers }, agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** Raw bytes on a fresh socket; resolves with everything the server sent before it closed (or reset) it. */
function raw(port: number, bytes: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const s = net.connect(port, '127.0.0.1', () => s.end(bytes));
    let out = '';
    s.setEncoding('latin1');
    s.on('data', (c: string) => (out += c));
    s.on('close', () => resolve(out));
    s.on('error', (err: NodeJS.ErrnoException) => (err.code === 'ECONNRESET' ? resolve(out) : reject(err)));
  });
}

describe('console server hardening', () => {
  it('answers only Host names it serves: a rebound DNS name reads nothing and commands nothing', async () => {
    const { run, port } = await start({ allowedHosts: ['console.example.org'] });
    for (const path of ['/api/balances', '/api/orders', '/api/snapshot', '/api/events', '/metrics', '/']) {
      const r = await ask(port, 'GET', path, { ...AUTH, host: `rebind.attacker.example:${port}` });
      expect(r.status, path).toBe(403);
      expect(JSON.parse(r.text).error).toBe('Host "rebind.attacker.example:' + port + '" is not served here: add "rebind.attacker.example" to console.allowedHosts to allow it');
    }
    expect((await ask(port, 'POST', '/api/halt', { ...AUTH, host: `rebind.attacker.example:${port}` })).status).toBe(403);
    expect(run.journalled).toEqual([]);
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `LOCALHOST:${port}`, `[::1]:${port}`, '127.0.0.1', 'console.example.org', `Console.Example.org:443`]) {
      expect((await ask(port, 'GET', '/api/status', { ...AUTH, host })).status, host).toBe(200);
    }
    for (const host of ['console.example.org.attacker.example', 'example.org', '127.0.0.1.nip.io', 'localhost.attacker.example']) {
      expect((await ask(port, 'GET', '/api/status', { ...AUTH, host })).status, host).toBe(403);
    }
    for (const host of ['a b', '127.0.0.1@attacker.example', 'attacker.example/127.0.0.1', '127.0.0.1:80:80']) expect((await ask(port, 'GET', '/api/status', { ...AUTH, host })).status, host).toBe(400);
    // HTTP/1.0 allows no Host at all: nothing to check it against, so refused.
    expect(await raw(port, `GET /api/status HTTP/1.0\r\nAuthorization: Bearer ${TOKEN}\r\n\r\n`)).toMatch(/^HTTP\/1\.1 400 /);
  });

  it('refuses a command or a stream from another origin, even with the token', async () => {
    const { run, port } = await start();
    for (const origin of ['http://attacker.example', 'null', `http://localhost:${port + 1}`, 'not a url']) {
      const r = await ask(port, 'POST', '/api/halt', { ...AUTH, origin });
      expect(r.status, origin).toBe(403);
      expect(JSON.parse(r.text).error, origin).toMatch(/^Origin .* is not this console/);
      expect((await ask(port, 'GET', '/api/events', { ...AUTH, origin })).status, origin).toBe(403);
    }
    expect(run.journalled).toEqual([]);
    expect((await ask(port, 'POST', '/api/halt', { ...AUTH, origin: `http://127.0.0.1:${port}` })).status).toBe(200);
    expect(run.journalled).toHaveLength(1);
  });

  it('reads need the token once one is configured; publicReads keeps loopback reads open; the page holds no data', async () => {
    const { port } = await start();
    for (const path of ['/api/status', '/api/balances', '/api/snapshot', '/api/events', '/metrics', '/api']) {
      expect((await ask(port, 'GET', path)).status, path).toBe(401);
    }
    expect((await ask(port, 'GET', '/')).status).toBe(200);
    const open = await start({ publicReads: true });
    expect((await ask(open.port, 'GET', '/api/balances')).status).toBe(200);
    expect((await ask(open.port, 'POST', '/api/halt')).status).toBe(401);
    await expect(start({ publicReads: true, host: '0.0.0.0' })).rejects.toThrow(/publicReads/);
  });

  it('forbids framing on every answer, and the page runs only its own hashed scripts', async () => {
    const { port } = await start();
    for (const [method, path] of [['GET', '/'], ['GET', '/api/status'], ['GET', '/nothing'], ['POST', '/api/halt']] as const) {
      const r = await ask(port, method, path);
      expect(r.headers['x-frame-options'], path).toBe('DENY');
      expect(String(r.headers['content-security-policy']), path).toContain("frame-ancestors 'none'");
      expect(r.headers['x-content-type-options'], path).toBe('nosniff');
      expect(r.headers['referrer-policy'], path).toBe('no-referrer');
    }
    const csp = String((await ask(port, 'GET', '/')).headers['content-security-policy']);
    expect(csp).not.toContain('unsafe-inline');
    const hash = (t: string): string => `'sha256-${createHash('sha256').update(t).digest('base64')}'`;
    expect(/script-src ([^;]*)/.exec(csp)?.[1]).toBe(`${hash('window.a=1')} ${hash('window.b=2')}`);
    expect(/style-src ([^;]*)/.exec(csp)?.[1]).toBe(hash('b{color:red}'));
  });

  it('caps the live streams and the connections', async () => {
    const { server, port } = await start({ limits: { sseClients: 2, connections: 6 } });
    const streams = await Promise.all([0, 1].map(() => openStream(port)));
    expect(server.feedClients).toBe(2);
    const third = await ask(port, 'GET', '/api/events', AUTH);
    expect(third.status).toBe(503);
    expect(third.headers['retry-after']).toBe('10');
    for (const s of streams) s.destroy();
    // Two stream sockets gone; fill the rest of the six, then one more is closed unanswered.
    await waitUntil(() => server.feedClients === 0);
    const held = await Promise.all([0, 1, 2, 3, 4, 5].map(() => connected(port)));
    const extra = await raw(port, `GET /api/status HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${TOKEN}\r\n\r\n`);
    expect(extra).toBe('');
    for (const s of held) s.destroy();
  });

  it('closes a connection whose headers dribble in (slow loris)', async () => {
    const { port } = await start({ limits: { headersTimeoutMs: 300 } });
    const s = await connected(port);
    let answer = '';
    s.setEncoding('latin1');
    s.on('data', (c: string) => (answer += c));
    s.write('GET /api/status HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ');
    const drip = setInterval(() => s.write('a'), 50);
    await new Promise((r) => s.once('close', r));
    clearInterval(drip);
    expect(answer).toMatch(/^HTTP\/1\.1 408 /);
  });

  it('drops a live-feed client that stops reading once a megabyte waits for it, and keeps serving', async () => {
    const { server, port, feed } = await start();
    const stalled = await connected(port);
    stalled.write(`GET /api/events HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${TOKEN}\r\n\r\n`);
    await waitUntil(() => server.feedClients === 1);
    stalled.pause();
    const line = JSON.stringify({ level: 30, time: 1, msg: 'x'.repeat(64 * 1024) });
    // Up to 64 MB offered; the kernel's buffers take a few, then a megabyte waits and the client goes.
    let sent = 0;
    while (sent < 1024 && server.feedClients === 1) {
      feed.log(line);
      sent++;
      await new Promise((r) => setImmediate(r));
    }
    expect(server.feedClients, `${sent} lines of 64 KB`).toBe(0);
    expect((await ask(port, 'GET', '/api/status', AUTH)).status).toBe(200);
    stalled.destroy();
  });

  it('reads no body it does not want: a 200 MB GET body or POST body is refused at its headers and the connection closed', async () => {
    const { run, port } = await start();
    for (const method of ['GET', 'POST']) {
      const { head, sent } = await flood(port, `${method} /api/${method === 'GET' ? 'status' : 'halt'} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${TOKEN}\r\nContent-Length: 200000000\r\n\r\n`);
      expect(head, method).toMatch(/^HTTP\/1\.1 413 /);
      expect(sent, method).toBeLessThan(32 * 1024 * 1024);
    }
    const chunked = await flood(port, `GET /api/status HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${TOKEN}\r\nTransfer-Encoding: chunked\r\n\r\n`, true);
    expect(chunked.head).toMatch(/^HTTP\/1\.1 413 /);
    expect(chunked.sent).toBeLessThan(32 * 1024 * 1024);
    // A chunked command body announces no length: it is read up to the cap, then refused.
    const post = await flood(port, `POST /api/halt HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${TOKEN}\r\nTransfer-Encoding: chunked\r\n\r\n`, true);
    expect(post.head).toMatch(/^HTTP\/1\.1 413 /);
    expect(post.head).toContain('body larger than 16384 bytes');
    expect(post.sent).toBeLessThan(32 * 1024 * 1024);
    expect(run.journalled).toEqual([]);
    // Headers: 64 KB of them is refused by the parser before any handler.
    expect(await raw(port, `GET /api/status HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Pad: ${'p'.repeat(64 * 1024)}\r\n\r\n`)).toMatch(/^HTTP\/1\.1 431 /);
  });

  it('slows wrong tokens per address, and 2,000 of them leave the log readable', async () => {
    const { server, port } = await start();
    const statuses = new Map<number, number>();
    const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });
    try {
      await Promise.all(
        Array.from({ length: 2000 }, () =>
          askWith(agent, port, { authorization: 'Bearer wrong-token-abcdefghijklmnop' }).then((r) => {
            statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
            if (r.status === 429) expect(Number(r.headers['retry-after'])).toBeGreaterThan(0);
          }),
        ),
      );
    } finally {
      agent.destroy();
    }
    expect(statuses.get(401)).toBeLessThanOrEqual(10);
    expect((statuses.get(429) ?? 0) + (statuses.get(401) ?? 0)).toBe(2000);
    const refusals = logs.filter((l) => l.includes('refused'));
    expect(refusals.length).toBeLessThanOrEqual(2);
    expect(logs.join('')).not.toContain('wrong-token-abcdefghijklmnop');
    await server.close();
    const summary = logs.filter((l) => l.includes('refused')).at(-1) ?? '';
    expect(summary).toMatch(/"from":"127\.0\.0\.1"/);
    expect(summary).toMatch(/"refused":(\d+)/);
    expect(Number(/"refused":(\d+)/.exec(summary)?.[1]) + refusals.length).toBeGreaterThanOrEqual(2000);
  });

  it('takes the token only from the Authorization header, and never hands it or markup back as a page', async () => {
    const { run, port } = await start();
    // A token in a URL ends up in logs and history; a cookie would ride along on cross-site requests.
    expect((await ask(port, 'GET', `/api/status?token=${TOKEN}`)).status).toBe(401);
    expect((await ask(port, 'GET', '/api/status', { cookie: `token=${TOKEN}; kancilToken=${TOKEN}` })).status).toBe(401);
    expect((await ask(port, 'POST', `/api/halt?access_token=${TOKEN}`)).status).toBe(401);
    expect(run.journalled).toEqual([]);
    // Markup in a value (a strategy's failure) is data: JSON with nosniff and a policy that runs nothing.
    run.strategyList = [{ name: 'mm', symbols: ['BTC_USDT'], state: 'HALTED', reason: 'failed', failure: { error: '<script>alert(1)</script><img src=x onerror=alert(2)>', phase: 'onTimer', t: 1 } }];
    const r = await ask(port, 'GET', '/api/strategies', AUTH);
    expect(r.status).toBe(200);
    expect(r.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(r.headers['x-content-type-options']).toBe('nosniff');
    expect(String(r.headers['content-security-policy'])).toMatch(/^default-src 'none';/);
    expect(JSON.parse(r.text)[0].failure.error).toBe('<script>alert(1)</script><img src=x onerror=alert(2)>');
    for (const path of ['/api', '/api/status', '/api/snapshot', '/', '/nothing']) expect((await ask(port, 'GET', path, AUTH)).text, path).not.toContain(TOKEN);
  });

  it('refuses an ambiguous request (smuggling) and an overlong reason', async () => {
    const { run, port } = await start();
    // Both a length and chunking: which body is meant is ambiguous, so the parser refuses it.
    const smuggled = `POST /api/resume HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${TOKEN}\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\nPOST /api/stop HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${TOKEN}\r\nContent-Length: 0\r\n\r\n`;
    expect(await raw(port, smuggled)).toMatch(/^HTTP\/1\.1 400 /);
    const long = await ask(port, 'POST', '/api/halt', { ...AUTH, 'content-type': 'application/json' }, JSON.stringify({ reason: 'r'.repeat(10_000) }));
    expect(long.status).toBe(400);
    expect(JSON.parse(long.text).error).toBe('reason: expected a string of at most 200 characters');
    expect(run.journalled).toEqual([]);
    expect(run.commands).toEqual([]);
  });

  it('answers 400 to a malformed path and 405 naming the allowed methods to a wrong one', async () => {
    const { run, port } = await start();
    for (const path of ['/api/strategies/%E0%A4%A/halt', '/api/strategies/%zz/halt', '/api/%']) {
      const r = await ask(port, 'POST', path, AUTH);
      expect(r.status, path).toBe(400);
      expect(JSON.parse(r.text).error, path).toMatch(/^path: bad percent-encoding in /);
    }
    expect((await raw(port, `GET http://attacker.example/api/status HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${TOKEN}\r\n\r\n`)).slice(0, 12)).toBe('HTTP/1.1 400');
    const cases: [string, string, string][] = [
      ['GET', '/api/halt', 'POST'],
      ['GET', '/api/strategies/mm/halt', 'POST'],
      ['PUT', '/api/stop', 'POST'],
      ['POST', '/api/status', 'GET, HEAD'],
      ['DELETE', '/', 'GET, HEAD'],
      ['POST', '/metrics', 'GET, HEAD'],
    ];
    for (const [method, path, allow] of cases) {
      const r = await ask(port, method, path, AUTH);
      expect(r.status, `${method} ${path}`).toBe(405);
      expect(r.headers.allow, `${method} ${path}`).toBe(allow);
    }
    expect(run.commands).toEqual([]);
    expect(logs.filter((l) => l.includes('console request failed'))).toEqual([]);
  });
});

function askWith(agent: http.Agent, port: number, headers: Record<string, string>): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, path: '/api/status', headers, agent }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: '' }));
    });
    req.on('error', reject);
    req.end();
  });
}

function openStream(port: number): Promise<http.ClientRequest> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, path: '/api/events', headers: AUTH, agent: false }, (res) => {
      expect(res.statusCode).toBe(200);
      res.once('data', () => resolve(req));
    });
    req.on('error', reject);
    req.end();
  });
}

function connected(port: number): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const s = net.connect(port, '127.0.0.1', () => resolve(s));
    s.on('error', reject);
  });
}

async function waitUntil(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((r) => setTimeout(r, 10));
}

/**
 * Sends the head, then body bytes for as long as the server takes them; resolves once the server
 * has closed, with what it answered and how many body bytes got out of this process.
 */
function flood(port: number, head: string, chunked = false): Promise<{ head: string; sent: number }> {
  return new Promise((resolve) => {
    const s = net.connect(port, '127.0.0.1');
    const block = Buffer.alloc(64 * 1024, 0x61);
    const piece = chunked ? Buffer.concat([Buffer.from(`${block.length.toString(16)}\r\n`), block, Buffer.from('\r\n')]) : block;
    let answer = '';
    let done = false;
    const pump = (): void => {
      while (!done && s.bytesWritten < 200_000_000) if (!s.write(piece)) return;
      if (!done) s.end();
    };
    s.setEncoding('latin1');
    s.on('data', (c: string) => (answer += c));
    s.on('connect', () => {
      s.write(head);
      pump();
    });
    s.on('drain', pump);
    s.on('error', () => undefined);
    s.on('close', () => {
      done = true;
      resolve({ head: answer, sent: s.bytesWritten - Buffer.byteLength(head) });
    });
  });
}
