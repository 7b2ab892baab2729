import { describe, expect, it } from 'vitest';
import type { BookStatusEvent } from '../../core/marketEvents.js';
import { parseDepthSides, scaledLevels } from '../../core/scaledLevels.js';
import { Decimal } from '../../core/decimal.js';
import { BookSync, type DiffInput } from './book-sync.js';

const diff = (U: number, u: number, bids: string[][] = [], asks: string[][] = []): DiffInput => ({ U, u, E: u, bids, asks });

function setup(): { sync: BookSync; requests: string[]; statuses: BookStatusEvent[] } {
  const requests: string[] = [];
  const statuses: BookStatusEvent[] = [];
  const sync = new BookSync('X', { requestSnapshot: (r) => requests.push(r), onStatus: (s) => statuses.push(s) });
  return { sync, requests, statuses };
}

describe('BookSync: the six-step procedure', () => {
  it('applies the next diff from levels parsed once exactly as onDiff does; anything else is not "next"', () => {
    const a = setup();
    const b = setup();
    for (const { sync } of [a, b]) {
      sync.onDiff(diff(1, 5, [['10', '1']]));
      sync.onSnapshot({ lastUpdateId: 5, bids: [['10', '1']], asks: [['12', '1']] }, 0);
      sync.onDiff(diff(6, 6, [['10.5', '2']]));
    }
    expect(b.sync.isNext(7, 9)).toBe(true);
    expect([b.sync.isNext(8, 9), b.sync.isNext(6, 6), b.sync.isNext(7, 6)]).toEqual([false, false, false]);
    const bids = scaledLevels();
    const asks = scaledLevels();
    const levels: [string[][], string[][]] = [[['10.25', '3'], ['10', '0']], [['12', '0.125'], ['13', '1']]];
    a.sync.onDiff(diff(7, 9, ...levels));
    parseDepthSides(levels[0] as [string, string][], levels[1] as [string, string][], bids, asks, b.sync.book.priceScale, b.sync.book.qtyScale);
    expect(b.sync.applyNextScaled(7, 9, 9, bids, asks)).toBe(true);
    expect(b.sync.book.wireLevels()).toEqual(a.sync.book.wireLevels());
    expect([b.sync.book.lastUpdateId, b.sync.stats.applied]).toEqual([a.sync.book.lastUpdateId, a.sync.stats.applied]);
    expect(() => b.sync.applyNextScaled(7, 9, 9, bids, asks)).toThrow(/not the next one/);
    // A rescale beyond 2^53 invalidates the book with the same reason as onDiff gives.
    for (const { sync } of [a, b]) sync.book.applyLevels([['90071992547409.91', '1']], []);
    a.sync.onDiff(diff(10, 10, [], [['1.005', '1']]));
    parseDepthSides([], [['1.005', '1']], bids, asks, b.sync.book.priceScale, b.sync.book.qtyScale);
    expect(b.sync.applyNextScaled(10, 10, 10, bids, asks)).toBe(false);
    expect(b.statuses).toEqual(a.statuses);
    expect([b.sync.state, b.sync.book.ready, b.requests]).toEqual([a.sync.state, a.sync.book.ready, a.requests]);
  });

  it('advanceNext moves the update id of a ready book and not its levels; step 5 still holds after it', () => {
    const { sync } = setup();
    sync.onDiff(diff(1, 5));
    sync.onSnapshot({ lastUpdateId: 5, bids: [['10', '1']], asks: [['12', '1']] }, 0);
    sync.onDiff(diff(6, 6, [['10.5', '2']]));
    sync.advanceNext(7, 9);
    expect([sync.book.lastUpdateId, sync.stats.applied, sync.state]).toEqual([9, 2, 'ready']);
    expect(sync.book.top(5)).toMatchObject({ bids: [{ price: new Decimal('10.5') }, { price: new Decimal('10') }], asks: [{ price: new Decimal('12') }] });
    expect(() => sync.advanceNext(9, 9)).toThrow(/not the next one/);
    expect(sync.isNext(10, 10)).toBe(true);
    sync.onDiff(diff(11, 11));
    expect(sync.state).toBe('buffering');
  });

  it('buffers, asks for a snapshot after the first event, drops stale events and bridges', () => {
    const { sync, requests, statuses } = setup();
    sync.onDiff(diff(1, 5, [['10', '1']]));
    expect(requests).toHaveLength(1);
    sync.onDiff(diff(6, 8, [['11', '2']]));
    sync.onDiff(diff(9, 9, [['11', '0']]));
    expect(sync.state).toBe('buffering');
    expect(sync.book.ready).toBe(false);
    sync.onSnapshot({ lastUpdateId: 7, bids: [['10', '1'], ['9', '1']], asks: [['12', '1']] }, 0);
    // event 1..5 dropped (u <= 7); 6..8 bridges 8 = L+1; 9..9 continues.
    expect(sync.stats.droppedStale).toBe(1);
    expect(sync.state).toBe('ready');
    expect(sync.book.ready).toBe(true);
    expect(sync.book.lastUpdateId).toBe(9);
    expect(sync.book.bestBid()?.price.toFixed()).toBe('10');
    expect(statuses.map((s) => s.ready)).toEqual([true]);
  });

  it('rejects a snapshot older than the buffered events and asks again', () => {
    const { sync, requests } = setup();
    sync.onDiff(diff(20, 25));
    sync.onSnapshot({ lastUpdateId: 10, bids: [], asks: [] }, 0);
    expect(sync.stats.snapshotsRejected).toBe(1);
    expect(requests).toHaveLength(2);
    expect(sync.book.ready).toBe(false);
    sync.onSnapshot({ lastUpdateId: 22, bids: [['1', '1']], asks: [] }, 0);
    expect(sync.book.ready).toBe(true);
  });

  it('waits for a bridging event when the snapshot is newer than everything buffered', () => {
    const { sync } = setup();
    sync.onDiff(diff(1, 3));
    sync.onSnapshot({ lastUpdateId: 10, bids: [['1', '1']], asks: [] }, 0);
    // Usable at once (a quiet market may send no diff for long), but the bridge rule still holds.
    expect(sync.state).toBe('bridging');
    expect(sync.book.ready).toBe(true);
    sync.onDiff(diff(5, 10));
    expect(sync.state).toBe('bridging');
    sync.onDiff(diff(11, 12));
    expect(sync.state).toBe('ready');
  });

  it('a first event that does not bridge a loaded snapshot invalidates the book', () => {
    const { sync, statuses } = setup();
    sync.onDiff(diff(1, 3));
    sync.onSnapshot({ lastUpdateId: 10, bids: [['1', '1']], asks: [] }, 0);
    expect(sync.book.ready).toBe(true);
    sync.onDiff(diff(13, 14));
    expect(sync.book.ready).toBe(false);
    expect(statuses.map((s) => s.ready)).toEqual([true, false]);
  });

  it('on a gap: not ready, book emptied, status event, new snapshot requested, then recovers', () => {
    const { sync, requests, statuses } = setup();
    sync.onDiff(diff(1, 1));
    sync.onSnapshot({ lastUpdateId: 0, bids: [['1', '1']], asks: [['2', '1']] }, 0);
    expect(sync.book.ready).toBe(true);
    sync.onDiff(diff(5, 6, [['1.5', '1']]));
    expect(sync.stats.gaps).toBe(1);
    expect(sync.book.ready).toBe(false);
    expect(sync.book.bestBid()).toBeUndefined();
    expect(statuses.at(-1)).toMatchObject({ ready: false, reason: expect.stringContaining('sequence gap') });
    expect(requests).toHaveLength(2);
    sync.onSnapshot({ lastUpdateId: 5, bids: [['1', '1']], asks: [['2', '1']] }, 0);
    expect(sync.book.ready).toBe(true);
    expect(sync.book.bestBid()?.price.toFixed()).toBe('1.5');
  });

  it('a malformed level invalidates rather than leaving a half-applied book', () => {
    const { sync } = setup();
    sync.onDiff(diff(1, 1));
    sync.onSnapshot({ lastUpdateId: 0, bids: [['1', '1']], asks: [] }, 0);
    sync.onDiff(diff(2, 2, [['2', '1'], ['bad', '1']]));
    expect(sync.book.ready).toBe(false);
    expect(sync.state).toBe('buffering');
  });

  it('ignores duplicates already contained in a ready book and later snapshots', () => {
    const { sync } = setup();
    sync.onDiff(diff(1, 2));
    sync.onSnapshot({ lastUpdateId: 1, bids: [['1', '1']], asks: [] }, 0);
    sync.onDiff(diff(1, 2, [['9', '9']]));
    expect(sync.book.bestBid()?.price.toFixed()).toBe('1');
    sync.onSnapshot({ lastUpdateId: 50, bids: [], asks: [] }, 0);
    expect(sync.book.lastUpdateId).toBe(2);
  });
});

describe('BookSync.resync after a dropped update', () => {
  it('refuses a snapshot older than the dropped update until a buffered diff bridges one', () => {
    const { sync, requests, statuses } = setup();
    sync.onDiff(diff(1, 5));
    sync.onSnapshot({ lastUpdateId: 5, bids: [['10', '1']], asks: [['12', '1']] }, 0);
    expect(sync.book.ready).toBe(true);
    sync.resync('dropped depth update', 1, 7);
    expect([sync.book.ready, requests.length, statuses.at(-1)?.ready]).toEqual([false, 2, false]);
    // Nothing buffered and older than u=7: loading it would hide the dropped change.
    sync.onSnapshot({ lastUpdateId: 6, bids: [['10', '1']], asks: [['12', '1']] }, 2);
    expect([sync.book.ready, sync.stats.snapshotsRejected, requests.length]).toEqual([false, 1, 3]);
    sync.onSnapshot({ lastUpdateId: 7, bids: [['10', '2']], asks: [['12', '1']] }, 3);
    expect([sync.book.ready, sync.book.bestBid()?.qty.toFixed()]).toEqual([true, '2']);
    // The floor is spent: a later stale resync without one takes any snapshot.
    sync.resync('stale', 4);
    sync.onSnapshot({ lastUpdateId: 7, bids: [['10', '3']], asks: [['12', '1']] }, 5);
    expect([sync.book.ready, sync.book.bestBid()?.qty.toFixed()]).toEqual([true, '3']);
  });

  it('a buffered diff that bridges the snapshot proves it newer than the dropped update', () => {
    const { sync } = setup();
    sync.onDiff(diff(1, 5));
    sync.onSnapshot({ lastUpdateId: 5, bids: [['10', '1']], asks: [['12', '1']] }, 0);
    sync.resync('dropped depth update', 1, 9);
    sync.onDiff(diff(10, 10, [['10', '4']]));
    sync.onSnapshot({ lastUpdateId: 9, bids: [['10', '1']], asks: [['12', '1']] }, 2);
    expect([sync.book.ready, sync.book.lastUpdateId, sync.book.bestBid()?.qty.toFixed()]).toEqual([true, 10, '4']);
  });
});
