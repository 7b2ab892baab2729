/**
 * k-way merge of time-ordered sources into one stream in event-time order. Ties go to the source
 * listed first, so the order is fully determined by the inputs. Each source's keys are clamped to
 * be non-decreasing (an item whose time is earlier than its predecessor's keeps its file position
 * and takes the predecessor's time), so one source can never move the merged clock backwards.
 */

/** An item with the time it is replayed at. */
export interface Timed<T> {
  readonly t: number;
  readonly item: T;
}

/** Items with their replay times, in order: `items[i]` is replayed at `times[i]`. */
export interface TimedBatch<T> {
  readonly times: number[];
  readonly items: readonly T[];
}

interface Head<T> {
  readonly src: number;
  readonly it: AsyncIterator<T>;
  t: number;
  item: T;
}

function less<T>(a: Head<T>, b: Head<T>): boolean {
  return a.t < b.t || (a.t === b.t && a.src < b.src);
}

/**
 * Merges sources by `timeOf(item)`; `timeOf` may return undefined for items without their own
 * time (e.g. a recorded REST snapshot), which then take the time of the previous item of the
 * same source (or `fallback(item)` for a source's first item).
 */
export async function* mergeByTime<T>(
  sources: readonly AsyncIterable<T>[],
  timeOf: (item: T) => number | undefined,
  fallback: (item: T) => number,
): AsyncGenerator<Timed<T>> {
  const heap: Head<T>[] = [];
  const lastT: number[] = sources.map(() => -Infinity);
  const push = (h: Head<T>): void => {
    heap.push(h);
    let i = heap.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!less(heap[i] as Head<T>, heap[p] as Head<T>)) break;
      [heap[i], heap[p]] = [heap[p] as Head<T>, heap[i] as Head<T>];
      i = p;
    }
  };
  const pop = (): Head<T> | undefined => {
    const top = heap[0];
    const last = heap.pop();
    if (heap.length > 0 && last !== undefined) {
      heap[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < heap.length && less(heap[l] as Head<T>, heap[m] as Head<T>)) m = l;
        if (r < heap.length && less(heap[r] as Head<T>, heap[m] as Head<T>)) m = r;
        if (m === i) break;
        [heap[i], heap[m]] = [heap[m] as Head<T>, heap[i] as Head<T>];
        i = m;
      }
    }
    return top;
  };
  const advance = async (src: number, it: AsyncIterator<T>): Promise<void> => {
    const r = await it.next();
    if (r.done) return;
    const own = timeOf(r.value);
    const prev = lastT[src] as number;
    const t = Math.max(own ?? (prev === -Infinity ? fallback(r.value) : prev), prev);
    lastT[src] = t;
    push({ src, it, t, item: r.value });
  };
  const iters = sources.map((s) => s[Symbol.asyncIterator]());
  try {
    for (let i = 0; i < iters.length; i++) await advance(i, iters[i] as AsyncIterator<T>);
    for (let h = pop(); h !== undefined; h = pop()) {
      yield { t: h.t, item: h.item };
      await advance(h.src, h.it);
    }
  } finally {
    for (const it of iters) await it.return?.();
  }
}
