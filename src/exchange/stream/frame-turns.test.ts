import { describe, expect, it } from 'vitest';
import { noteSendQueued, requestWritten } from '../../core/requestWrites.js';
import { FrameTurns } from './frame-turns.js';

/** A handler like the live loop's: an 'order' frame queues a send, whose request is written from queued callbacks. */
function loop(seen: string[]): FrameTurns<string> {
  return new FrameTurns<string>((f) => {
    seen.push(f);
    if (f === 'order' || f === 'refused') noteSendQueued();
    if (f === 'order') {
      // The router's promise chain, then Node's http client's nextTick, then the socket write.
      queueMicrotask(() =>
        process.nextTick(() => {
          seen.push('written');
          requestWritten();
        }),
      );
    }
  });
}

const checkPhase = (): Promise<void> => new Promise((r) => setImmediate(r));

describe('FrameTurns', () => {
  it("handles the frames behind an order's after its request is written, in order", async () => {
    const seen: string[] = [];
    const turns = loop(seen);
    // One socket read: ws hands these over in one synchronous loop.
    for (const f of ['depth', 'order', 'trade', 'order', 'depth']) turns.push(f);
    expect(seen).toEqual(['depth', 'order']);
    await checkPhase();
    expect(seen).toEqual(['depth', 'order', 'written', 'trade', 'order', 'written', 'depth']);
  });

  it('hands other frames over at once, and lets a send that makes no request hold the rest only until the check phase', async () => {
    const seen: string[] = [];
    const turns = loop(seen);
    turns.push('a');
    turns.push('b');
    expect(seen).toEqual(['a', 'b']);
    turns.push('refused');
    turns.push('c');
    setImmediate(() => seen.push('check phase'));
    await checkPhase();
    expect(seen).toEqual(['a', 'b', 'refused', 'c', 'check phase']);
    turns.push('d');
    expect(seen.at(-1)).toBe('d');
  });
});
