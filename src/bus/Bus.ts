/**
 * The event bus of one run. Sources are merged in; consumers subscribe (`events$`, RxJS) or, on
 * hot paths, `listen` with a plain function. Delivery is synchronous so the per-event hot path
 * stays cheap and deterministic: every consumer, of either kind, is called in the order it
 * joined.
 *
 * The fan-out is a plain array rather than an RxJS Subject: a Subject's bookkeeping per event
 * (error context, observer snapshot, closed checks) was a tenth of a candle backtest's time.
 * `events$` keeps a Subject's observable behaviour: each subscriber gets the events published
 * after it subscribed, errors its callback throws are reported by RxJS (not to the publisher),
 * and it completes when the bus closes.
 */
import { createRequire } from 'node:module';
import type { Observable, Subscriber, Subscription } from 'rxjs';
import type * as ObservableModule from 'rxjs/internal/Observable';
import type { BusEvent } from './events.js';

const require = createRequire(import.meta.url);

/** A consumer called synchronously with each published event. */
export type BusListener = (event: BusEvent) => void;

/** One run's event stream. */
export class Bus {
  /** Replaced, never mutated (copy on write), so a publish in progress keeps its snapshot. */
  #listeners: readonly BusListener[] = [];
  readonly #subscribers = new Set<Subscriber<BusEvent>>();
  readonly #sources: Subscription[] = [];
  #events$: Observable<BusEvent> | undefined;
  #published = 0;
  #closed = false;
  readonly #onListenerError: ((err: unknown, event: BusEvent) => void) | undefined;

  /**
   * `onListenerError`: where an error a `listen` consumer throws goes instead of to the publisher
   * (a running bot's: the publisher is a socket's or a timer's callback, where a throw would end
   * the process with orders resting; the run stops in order instead). The other consumers still
   * get the event. Without it (backtests) the error reaches the publisher, which ends the run.
   */
  constructor(o: { readonly onListenerError?: (err: unknown, event: BusEvent) => void } = {}) {
    this.#onListenerError = o.onListenerError;
  }

  /** The merged event stream. */
  get events$(): Observable<BusEvent> {
    return (this.#events$ ??= this.#observable());
  }

  #observable(): Observable<BusEvent> {
    // RxJS's Observable module alone (the package's index is ~220 CommonJS modules), and only when
    // first asked for: a backtest, which listens, never loads it (~15 modules, ~6 ms at its start).
    const { Observable: ObservableClass } = require('rxjs/internal/Observable') as typeof ObservableModule;
    return new ObservableClass<BusEvent>((sub) => {
      if (this.#closed) {
        sub.complete();
        return undefined;
      }
      this.#subscribers.add(sub);
      const stop = this.listen((e) => sub.next(e));
      return () => {
        stop();
        this.#subscribers.delete(sub);
      };
    });
  }

  /** Number of events published so far. */
  get published(): number {
    return this.#published;
  }

  /**
   * Calls `fn` with every event published from now on, until the returned function is called or
   * the bus closes. Unlike `events$`, an error `fn` throws reaches the publisher, or the bus's
   * `onListenerError` (a hot-path consumer that fails must stop the run, not be reported later).
   */
  listen(fn: BusListener): () => void {
    if (this.#closed) return () => undefined;
    this.#listeners = [...this.#listeners, fn];
    return () => {
      const i = this.#listeners.indexOf(fn);
      if (i >= 0) this.#listeners = [...this.#listeners.slice(0, i), ...this.#listeners.slice(i + 1)];
    };
  }

  /** Publishes one event to every consumer, synchronously, in the order they joined. */
  publish(event: BusEvent): void {
    this.#published++;
    const l = this.#listeners;
    const onError = this.#onListenerError;
    if (onError === undefined) {
      for (let i = 0; i < l.length; i++) (l[i] as BusListener)(event);
      return;
    }
    for (let i = 0; i < l.length; i++) {
      try {
        (l[i] as BusListener)(event);
      } catch (err) {
        onError(err, event);
      }
    }
  }

  /** Merges a source into the bus until it completes or the bus closes. Source errors are reported, not fatal. */
  attach(source: Observable<BusEvent>, onError?: (err: unknown) => void): Subscription {
    const sub = source.subscribe({ next: (e) => this.publish(e), error: (err: unknown) => onError?.(err) });
    this.#sources.push(sub);
    return sub;
  }

  /** Detaches every source, drops every consumer and completes the stream. */
  close(): void {
    if (this.#closed) return;
    for (const s of this.#sources) s.unsubscribe();
    this.#sources.length = 0;
    this.#closed = true;
    this.#listeners = [];
    const subs = [...this.#subscribers];
    this.#subscribers.clear();
    for (const s of subs) s.complete();
  }
}
