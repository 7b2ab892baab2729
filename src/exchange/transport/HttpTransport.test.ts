import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { httpRequestFinished, httpRequestWritten } from '../../core/probes.js';
import { afterNextRequestWrite } from '../../core/requestWrites.js';
import { HttpTransport, type HttpRequest } from './HttpTransport.js';

/**
 * A raw HTTP/1.1 server on loopback that answers each request with its path, keeps connections
 * alive, and lets a test act on an idle connection (send stray bytes, close it) or hang.
 */
class RawServer {
  readonly sockets: net.Socket[] = [];
  /** Paths that get no answer. */
  readonly hang = new Set<string>();

  private constructor(
    private readonly server: net.Server,
    readonly origin: string,
  ) {}

  static async start(): Promise<RawServer> {
    const holder: { self?: RawServer } = {};
    const server = net.createServer((s) => holder.self?.accept(s));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const self = new RawServer(server, `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`);
    holder.self = self;
    return self;
  }

  accept(s: net.Socket): void {
    this.sockets.push(s);
    s.on('error', () => undefined);
    let buf = '';
    s.on('data', (d: Buffer) => {
      buf += d.toString('latin1');
      for (let end = buf.indexOf('\r\n\r\n'); end >= 0; end = buf.indexOf('\r\n\r\n')) {
        const head = buf.slice(0, end);
        const length = Number(/content-length: *(\d+)/i.exec(head)?.[1] ?? 0);
        if (buf.length < end + 4 + length) return;
        buf = buf.slice(end + 4 + length);
        const path = head.split(' ')[1] ?? '';
        if (this.hang.has(path)) continue;
        const body = JSON.stringify({ path });
        const repeated = path === '/repeated' ? 'Set-Cookie: a=1\r\nSet-Cookie: b=2\r\nX-Twice: 1\r\nX-Twice: 2\r\n' : '';
        s.write(`HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n${repeated}Keep-Alive: timeout=60\r\n\r\n${body}`);
      }
    });
  }

  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

const post = (origin: string, path: string, timeoutMs = 2_000): HttpRequest => ({ method: 'POST', origin, path, headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'clientId=a', timeoutMs });
const until = async (cond: () => boolean): Promise<void> => {
  for (let i = 0; i < 200 && !cond(); i++) await new Promise((r) => setTimeout(r, 5));
};

let server: RawServer;
let transport: HttpTransport;
afterEach(async () => {
  await transport.close();
  await server.close();
});

describe('HttpTransport keep-alive connections', () => {
  it('writes a request on a free connection before the loop reaches its check phase (no turn of waiting)', async () => {
    server = await RawServer.start();
    transport = new HttpTransport({ connections: 1 });
    await transport.send(post(server.origin, '/warm'));
    const seen: string[] = [];
    const onWritten = (): void => void seen.push('written');
    httpRequestWritten.subscribe(onWritten);
    try {
      const answer = transport.send(post(server.origin, '/order'));
      setImmediate(() => seen.push('check phase'));
      const res = await answer;
      expect(res.ok && res.response.body).toBe('{"path":"/order"}');
      expect(seen).toEqual(['written', 'check phase']);
      expect(server.sockets).toHaveLength(1);
    } finally {
      httpRequestWritten.unsubscribe(onWritten);
    }
  });

  it("stamps a request written at its socket write, before the write's callbacks report it finished", async () => {
    server = await RawServer.start();
    transport = new HttpTransport({ connections: 2 });
    await Promise.all([transport.send(post(server.origin, '/warm')), transport.send(post(server.origin, '/warm'))]);
    const seen: string[] = [];
    const onWritten = (): void => void seen.push('written');
    const onFinished = (): void => void seen.push('finished');
    httpRequestWritten.subscribe(onWritten);
    httpRequestFinished.subscribe(onFinished);
    try {
      // Two requests of one turn: each is written as its connection is handed over, and the
      // 'finish' of the first waits behind the second's write.
      await Promise.all([transport.send(post(server.origin, '/a')), transport.send(post(server.origin, '/b'))]);
      expect(server.sockets).toHaveLength(2);
      expect(seen).toEqual(['written', 'written', 'finished', 'finished']);
    } finally {
      httpRequestWritten.unsubscribe(onWritten);
      httpRequestFinished.unsubscribe(onFinished);
    }
  });

  it('resumes what waits for the next request once that request is written, before the check phase', async () => {
    server = await RawServer.start();
    transport = new HttpTransport({ connections: 1 });
    await transport.send(post(server.origin, '/warm'));
    const seen: string[] = [];
    afterNextRequestWrite(() => seen.push('resumed'));
    const answer = transport.send(post(server.origin, '/order'));
    setImmediate(() => seen.push('check phase'));
    await answer;
    expect(seen).toEqual(['resumed', 'check phase']);
  });

  it('a repeated header comes back as one text, set-cookie too', async () => {
    server = await RawServer.start();
    transport = new HttpTransport({ connections: 1 });
    const plain = await transport.send(post(server.origin, '/plain'));
    expect(plain.ok && plain.response.headers).toMatchObject({ 'content-type': 'application/json', 'keep-alive': 'timeout=60' });
    const res = await transport.send(post(server.origin, '/repeated'));
    expect(res.ok && res.response.headers).toMatchObject({ 'set-cookie': 'a=1, b=2', 'x-twice': '1, 2', 'content-length': '20' });
  });

  it('free connections carry the next requests, most recently freed first; the rest wait for one', async () => {
    server = await RawServer.start();
    transport = new HttpTransport({ connections: 2 });
    const paths = ['/a', '/b', '/c', '/d', '/e'];
    const answers = await Promise.all(paths.map((p) => transport.send(post(server.origin, p))));
    expect(answers.map((a) => a.ok && a.response.body)).toEqual(paths.map((path) => JSON.stringify({ path })));
    expect(server.sockets).toHaveLength(2);
    const seen: number[] = [];
    server.sockets.forEach((s, i) => s.on('data', () => seen.push(i)));
    for (const p of ['/f', '/g', '/h']) expect((await transport.send(post(server.origin, p))).ok).toBe(true);
    expect(server.sockets).toHaveLength(2);
    expect(new Set(seen).size).toBe(1);
  });

  it('an idle connection that received stray bytes does not carry the next request', async () => {
    server = await RawServer.start();
    transport = new HttpTransport({ connections: 1 });
    await transport.send(post(server.origin, '/first'));
    const stray = 'HTTP/1.1 200 OK\r\nContent-Length: 17\r\n\r\n{"path":"/stray"}';
    server.sockets[0]!.write(stray);
    await until(() => server.sockets[0]!.destroyed || server.sockets[0]!.readableEnded);
    const res = await transport.send(post(server.origin, '/next'));
    expect(res.ok && res.response.body).toBe('{"path":"/next"}');
    expect(server.sockets).toHaveLength(2);
  });

  it('an idle connection the server closed is not used: the next order goes out on a new one', async () => {
    server = await RawServer.start();
    transport = new HttpTransport({ connections: 1 });
    await transport.send(post(server.origin, '/first'));
    const first = server.sockets[0]!;
    first.end();
    await new Promise((r) => first.once('close', r));
    const res = await transport.send(post(server.origin, '/next'));
    expect(res.ok && res.response.body).toBe('{"path":"/next"}');
    expect(server.sockets).toHaveLength(2);
  });

  it('no answer in time is a timeout once written, but a request still waiting for a connection was never sent', async () => {
    server = await RawServer.start();
    server.hang.add('/hang');
    transport = new HttpTransport({ connections: 1 });
    const [written, queued] = await Promise.all([transport.send(post(server.origin, '/hang', 150)), transport.send(post(server.origin, '/queued', 100))]);
    expect(written).toMatchObject({ ok: false, kind: 'timeout' });
    expect(queued).toMatchObject({ ok: false, kind: 'connect' });
    // The timed-out connection is given up, not handed to the next request with an answer pending.
    const res = await transport.send(post(server.origin, '/after'));
    expect(res.ok && res.response.body).toBe('{"path":"/after"}');
  });

  it('closing twice while a request is in flight: both closes end once it has', async () => {
    server = await RawServer.start();
    server.hang.add('/hang');
    transport = new HttpTransport({ connections: 1 });
    const answer = transport.send(post(server.origin, '/hang', 100));
    await Promise.all([transport.close(), transport.close()]);
    expect(await answer).toMatchObject({ ok: false, kind: 'timeout' });
  });

  it('a connection lost in the middle of a body is an io failure', async () => {
    server = await RawServer.start();
    server.hang.add('/cut');
    transport = new HttpTransport({ connections: 1 });
    const answer = transport.send(post(server.origin, '/cut'));
    await until(() => server.sockets.length === 1);
    await new Promise((r) => setTimeout(r, 20));
    server.sockets[0]!.end('HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n{"par');
    expect(await answer).toMatchObject({ ok: false, kind: 'io' });
  });
});
