/**
 * Hostile frames into the sandbox's WebSocket servers over real loopback sockets: JSON nested
 * past serde's limit, a frame header announcing 64 MiB, and random or adversarial text frames on
 * both the stream control channel and the WebSocket API. Each is answered (or the connection closed
 * with 1009) while the sandbox keeps serving and records no internal failure.
 */
import net from 'node:net';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { type RunningSandbox, startSandbox } from '../../src/sandbox/index.js';
import { testSandboxConfig } from '../../src/sandbox/test-config.js';

let sbx: RunningSandbox;

beforeAll(async () => {
  sbx = await startSandbox(testSandboxConfig(), { quiet: true });
});
afterAll(async () => {
  await sbx.stop();
});

/** One connection that answers each frame sent with the next frame received. */
class Peer {
  readonly #queue: string[] = [];
  #wake: (() => void) | undefined;
  closed: number | undefined;
  private constructor(readonly ws: WebSocket) {
    ws.on('message', (d: Buffer) => {
      this.#queue.push(d.toString('utf8'));
      this.#wake?.();
    });
    ws.on('close', (code) => {
      this.closed = code;
      this.#wake?.();
    });
  }
  static async open(url: string): Promise<Peer> {
    const ws = new WebSocket(url);
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    return new Peer(ws);
  }
  async ask(text: string): Promise<string> {
    this.ws.send(text);
    while (this.#queue.length === 0) {
      if (this.closed !== undefined) throw new Error(`closed ${this.closed} after ${JSON.stringify(text.slice(0, 80))}`);
      await new Promise<void>((resolve) => (this.#wake = resolve));
    }
    return this.#queue.shift() as string;
  }
  close(): void {
    this.ws.terminate();
  }
}

/**
 * Opens a raw WebSocket on `url`, sends a text frame header announcing `length` bytes followed by
 * only 1 KB of it, and returns the close code the server answers with (and how long it waited).
 */
function announceFrame(url: string, length: number): Promise<number> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(u.port), u.hostname);
    let buf = Buffer.alloc(0);
    let upgraded = false;
    socket.on('error', reject);
    socket.on('close', () => reject(new Error('closed without a close frame')));
    socket.on('connect', () => {
      socket.write(`GET ${u.pathname}${u.search} HTTP/1.1\r\nHost: ${u.host}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n`);
    });
    socket.on('data', (chunk: Buffer) => {
      buf = Buffer.concat([buf, chunk]);
      if (!upgraded) {
        const end = buf.indexOf('\r\n\r\n');
        if (end < 0) return;
        expect(buf.subarray(0, 12).toString()).toBe('HTTP/1.1 101');
        upgraded = true;
        buf = buf.subarray(end + 4);
        const header = Buffer.alloc(14);
        header[0] = 0x81; // FIN, text
        header[1] = 0x80 | 127; // masked, 64-bit length follows
        header.writeBigUInt64BE(BigInt(length), 2);
        header.writeUInt32BE(0x01020304, 10); // mask key
        socket.write(Buffer.concat([header, Buffer.alloc(1024, 0x5b)]));
      }
      // The server's close frame: 0x88, payload length, then the 2-byte code.
      if (buf.length >= 4 && buf[0] === 0x88) {
        socket.removeAllListeners('close');
        socket.destroy();
        resolve(buf.readUInt16BE(2));
      }
    });
  });
}

describe('sandbox frames', () => {
  it('answers 5 KB of [ on a stream connection with code 3 and keeps the connection', async () => {
    const p = await Peer.open(`${sbx.urls.stream_url}/ws`);
    try {
      expect(await p.ask('['.repeat(5_000))).toBe('{"code":3,"msg":"Invalid JSON: recursion limit exceeded at line 1 column 128"}');
      expect(await p.ask('{"method":"SUBSCRIBE","params":["btcusdt@trade"],"id":1}')).toBe('{"result":null,"id":1}');
    } finally {
      p.close();
    }
    expect(sbx.failures.count).toBe(0);
  });

  it('answers JSON nested past the limit on the WebSocket API with -1100 and keeps the session', async () => {
    const p = await Peer.open(sbx.urls.ws_api_url);
    try {
      // Valid JSON that JSON.parse takes: echoing `method` back used to overflow the stack.
      const deep = `{"id":"d","method":${'['.repeat(20_000)}${']'.repeat(20_000)}}`;
      const r = JSON.parse(await p.ask(deep)) as { status: number; error: { code: number; msg: string } };
      expect(r.status).toBe(400);
      expect(r.error.code).toBe(-1100);
      expect(r.error.msg).toContain('recursion limit exceeded');
      const ok = JSON.parse(await p.ask('{"id":"u","method":"userDataStream.unsubscribe","params":{}}')) as { status: number };
      expect(ok.status).toBe(200);
    } finally {
      p.close();
    }
    expect(sbx.failures.count).toBe(0);
  });

  it('closes with 1009 on a frame header announcing 64 MiB, without waiting for its bytes', async () => {
    // Only 1 KB of the payload is ever sent: an answer proves the server refused on the header.
    expect(await announceFrame(`${sbx.urls.stream_url}/ws`, 64 * 1024 * 1024)).toBe(1009);
    expect(await announceFrame(sbx.urls.ws_api_url, 64 * 1024 * 1024)).toBe(1009);
    const p = await Peer.open(`${sbx.urls.stream_url}/ws`);
    try {
      expect(await p.ask('{"method":"LIST_SUBSCRIPTIONS","id":2}')).toBe('{"result":[],"id":2}');
    } finally {
      p.close();
    }
  });

  it('answers every random or adversarial frame with one reply on both channels, and stays up', async () => {
    const stream = await Peer.open(`${sbx.urls.stream_url}/ws`);
    const api = await Peer.open(sbx.urls.ws_api_url);
    const frame = fc.oneof(
      fc.string({ maxLength: 200 }),
      fc.string({ unit: fc.constantFrom('{', '}', '[', ']', '"', ':', ',', '1', '-', 'e', 'n', '\\', ' ', 'u'), maxLength: 300 }),
      fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify(v)),
      fc.record({ method: fc.oneof(fc.constantFrom('SUBSCRIBE', 'UNSUBSCRIBE', 'LIST_SUBSCRIPTIONS', 'SET_PROPERTY', 'GET_PROPERTY', 'userDataStream.subscribe.listenToken', 'userDataStream.unsubscribe'), fc.jsonValue({ maxDepth: 2 })), params: fc.jsonValue({ maxDepth: 3 }), id: fc.oneof(fc.nat(), fc.string(), fc.jsonValue({ maxDepth: 1 })) }, { requiredKeys: [] }).map((o) => JSON.stringify(o)),
      fc.nat({ max: 400 }).map((n) => `${'{"a":'.repeat(n)}1${'}'.repeat(n)}`),
    );
    try {
      await fc.assert(
        fc.asyncProperty(frame, async (text) => {
          const a = JSON.parse(await stream.ask(text)) as Record<string, unknown>;
          expect('result' in a || typeof a.code === 'number').toBe(true);
          const b = JSON.parse(await api.ask(text)) as Record<string, unknown>;
          expect(typeof b.status).toBe('number');
        }),
        { numRuns: 150 },
      );
    } finally {
      stream.close();
      api.close();
    }
    expect(sbx.failures.count).toBe(0);
  });

  it('reports a callback that throws instead of dying, and goes on serving', async () => {
    const r = await fetch(`${sbx.urls.admin_url}/faults/crash`, { method: 'POST', body: '{}' });
    expect(r.status).toBe(200);
    const f = await sbx.failures.failed;
    expect(f.where).toBe('stream housekeeping');
    expect(f.error.message).toMatch(/injected fault/);
    const p = await Peer.open(`${sbx.urls.stream_url}/ws`);
    try {
      expect(await p.ask('{"method":"GET_PROPERTY","params":["combined"],"id":3}')).toBe('{"result":false,"id":3}');
    } finally {
      p.close();
    }
  });
});
