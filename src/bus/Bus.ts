/**
 * The event bus: one RxJS Subject per run. Sources are merged in; consumers subscribe.
 * Delivery is synchronous so the per-event hot path stays cheap and deterministic.
 */
import { Subject, type Observable, type Subscription } from 'rxjs';
import type { BusEvent } from './events.js';

/** One run's event stream. */
export class Bus {
  readonly #subject = new Subject<BusEvent>();
  readonly #sources: Subscription[] = [];
  #published = 0;

  /** The merged event stream. */
  get events$(): Observable<BusEvent> {
    return this.#subject.asObservable();
  }

  /** Number of events published so far. */
  get published(): number {
    return this.#published;
  }

  /** Publishes one event to every subscriber, synchronously. */
  publish(event: BusEvent): void {
    this.#published++;
    this.#subject.next(event);
  }

  /** Merges a source into the bus until it completes or the bus closes. Source errors are reported, not fatal. */
  attach(source: Observable<BusEvent>, onError?: (err: unknown) => void): Subscription {
    const sub = source.subscribe({ next: (e) => this.publish(e), error: (err: unknown) => onError?.(err) });
    this.#sources.push(sub);
    return sub;
  }

  /** Detaches every source and completes the stream. */
  close(): void {
    for (const s of this.#sources) s.unsubscribe();
    this.#sources.length = 0;
    this.#subject.complete();
  }
}
