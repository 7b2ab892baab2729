import { EventEmitter } from 'node:events';
import type { QueueEvents } from 'bullmq';
import { describe, expect, it } from 'vitest';
import { FinishedJobs } from './finishedJobs.js';
import { fairPriority } from './queueSweep.js';

describe('FinishedJobs', () => {
  it('hands over the ids announced completed or failed, in batches, each once', async () => {
    const events = new EventEmitter();
    const finished = new FinishedJobs(events as unknown as QueueEvents);
    events.emit('completed', { jobId: 'a' });
    events.emit('failed', { jobId: 'b' });
    events.emit('completed', { jobId: 'a' });
    expect(await finished.next(60_000)).toEqual(['a', 'b']);
    const waiting = finished.next(60_000);
    events.emit('progress', { jobId: 'x' });
    events.emit('completed', { jobId: 'c' });
    expect(await waiting).toEqual(['c']);
  });

  it('resolves empty when nothing is announced', async () => {
    expect(await new FinishedJobs(new EventEmitter() as unknown as QueueEvents).next(1)).toEqual([]);
  });
});

describe('fairPriority', () => {
  it("starts a new sweep's jobs at the priority the workers take next, within BullMQ's range", () => {
    expect([0, 1, 2].map((k) => fairPriority(1, k))).toEqual([1, 2, 3]);
    expect(fairPriority(500, 0)).toBe(500);
    expect(fairPriority(0, 0)).toBe(1);
    expect(fairPriority(2_097_000, 1000)).toBe(2_097_152);
  });
});
