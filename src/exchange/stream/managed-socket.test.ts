import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocketServer } from 'ws';
import { noteSendQueued, requestWritten } from '../../core/requestWrites.js';
import { ManagedSocket } from './managed-socket.js';

let wss: WebSocketServer | undefined;
let socket: ManagedSocket | undefined;
afterEach(async () => {
  await socket?.close();
  socket = undefined;
  await new Promise((r) => wss?.close(r));
  wss = undefined;
});

/**
 * What a user stream's handler sees of one socket read of two frames, a fill the strategy answers
 * with an order and the report behind it: the order's request is written from queued callbacks
 * (the router's promise chain, then Node's http client's nextTick), as in a live run.
 */
async function oneRead(holdFramesForOrders: boolean): Promise<string[]> {
  const server = new WebSocketServer({ port: 0, host: '127.0.0.1' });
  wss = server;
  await new Promise((r) => server.once('listening', r));
  // Both frames in one socket write, so the client reads them together.
  server.on('connection', (peer, req) => {
    req.socket.cork();
    peer.send('fill');
    peer.send('report');
    req.socket.uncork();
  });
  const port = (server.address() as { port: number }).port;
  const seen: string[] = [];
  await new Promise<void>((resolve) => {
    socket = new ManagedSocket({
      url: () => Promise.resolve(`ws://127.0.0.1:${port}`),
      onOpen: () => undefined,
      onDown: () => undefined,
      logger: pino({ level: 'silent' }),
      holdFramesForOrders,
      onMessage: (text) => {
        seen.push(text);
        if (text === 'report') resolve();
        if (text !== 'fill') return;
        noteSendQueued();
        queueMicrotask(() =>
          process.nextTick(() => {
            seen.push('written');
            requestWritten();
          }),
        );
      },
    });
    socket.start();
  });
  await new Promise((r) => setImmediate(r));
  return seen;
}

describe('ManagedSocket', () => {
  it('holding frames for orders, writes the order a frame led to before the rest of its read is handled', async () => {
    expect(await oneRead(true)).toEqual(['fill', 'written', 'report']);
  });

  it('without the hold, hands the whole read over first', async () => {
    expect(await oneRead(false)).toEqual(['fill', 'report', 'written']);
  });
});
