import { afterEach, describe, expect, it } from 'vitest';
import WebSocket, { WebSocketServer } from 'ws';
import { type FrameProbe, frameReceived } from '../../core/probes.js';
import { probeFrames } from './frame-probe.js';

let wss: WebSocketServer | undefined;
afterEach(async () => {
  await new Promise((r) => wss?.close(r));
  wss = undefined;
});

describe('probeFrames', () => {
  it('stamps a frame behind another of the same read with that read, not with when its handler got it', async () => {
    const server = new WebSocketServer({ port: 0, host: '127.0.0.1' });
    wss = server;
    await new Promise((r) => server.once('listening', r));
    // Two frames in one socket write, so the client reads them together.
    server.on('connection', (peer, req) => {
      req.socket.cork();
      peer.send('first');
      peer.send('second');
      req.socket.uncork();
    });
    const port = (server.address() as { port: number }).port;
    const seen: FrameProbe[] = [];
    const onFrame = (m: unknown): void => void seen.push(m as FrameProbe);
    frameReceived.subscribe(onFrame);
    try {
      const ws = new WebSocket(`ws://127.0.0.1:${port}`);
      probeFrames(ws);
      const done = new Promise<void>((resolve) => {
        ws.on('message', () => {
          // The first frame's handler keeps the loop 5 ms: the second waits behind it.
          if (seen.length === 1) for (const t = performance.now(); performance.now() - t < 5; );
          else resolve();
        });
      });
      await done;
      ws.terminate();
    } finally {
      frameReceived.unsubscribe(onFrame);
    }
    const [first, second] = seen;
    expect(String(first?.data)).toBe('first');
    expect(Number.isFinite(first?.readAt)).toBe(true);
    expect(second?.readAt).toBe(first?.readAt);
    // Bounds only (no upper limit that a loaded machine could break): the read came before the
    // first frame's handler, and the second frame waited the first one's 5 ms after it.
    expect(first?.readAt).toBeLessThanOrEqual(first?.at ?? 0);
    expect((second?.at ?? 0) - (second?.readAt ?? 0)).toBeGreaterThanOrEqual(5);
  });
});
