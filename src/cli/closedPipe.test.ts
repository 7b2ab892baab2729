import { EventEmitter } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';
import { CLOSED_PIPE_EXIT, guardStdio, isClosed, onClosedPipe, resetClosedPipes } from './closedPipe.js';

function epipe(): Error {
  return Object.assign(new Error('write EPIPE'), { code: 'EPIPE' });
}

afterEach(resetClosedPipes);

describe('a closed stdout or stderr', () => {
  it('ends the process once, quietly, with the status of a SIGPIPE death', () => {
    const streams = { stdout: new EventEmitter(), stderr: new EventEmitter() };
    const exits: number[] = [];
    guardStdio(streams, (code) => exits.push(code));
    expect(isClosed('stdout')).toBe(false);
    streams.stdout.emit('error', epipe());
    // A write after the close fails again: still one exit.
    streams.stdout.emit('error', epipe());
    expect(exits).toEqual([CLOSED_PIPE_EXIT]);
    expect(isClosed('stdout')).toBe(true);
    expect(isClosed('stderr')).toBe(false);
  });

  it('calls the graceful handler instead while one is registered, and exits again once it is removed', () => {
    const streams = { stdout: new EventEmitter(), stderr: new EventEmitter() };
    const exits: number[] = [];
    const seen: string[] = [];
    guardStdio(streams, (code) => exits.push(code));
    const undo = onClosedPipe((s) => seen.push(s));
    streams.stderr.emit('error', epipe());
    expect(seen).toEqual(['stderr']);
    expect(exits).toEqual([]);
    undo();
    streams.stdout.emit('error', epipe());
    expect(exits).toEqual([CLOSED_PIPE_EXIT]);
  });
});
