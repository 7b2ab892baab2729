/**
 * Is the exchange answering at all? A frozen exchange (process stopped, sockets left open) gave
 * no halt: no socket closed, so no stream went "down", and REST calls only timed out one by one.
 *
 * The rule: the exchange is unreachable when no stream message arrived for `silenceMs` (every
 * stream of the run, market and user data) and a REST probe (server time) sent after the silence
 * began got no answer within `probeTimeoutMs`. The probe goes out once the streams have been
 * quiet for half of `silenceMs`, so a quiet market whose REST host still answers never halts. While
 * unreachable, a probe goes out every half `silenceMs`; the first that is answered ends it.
 * Trading halts for the whole time (the trading-state machine's `exchange` input); when it ends
 * the caller reconciles, since reports may have been lost meanwhile.
 */

/** Settings and hooks of the monitor. */
export interface LivenessOptions {
  /** Silence on every stream, with an unanswered probe, that makes the exchange unreachable (ms). */
  readonly silenceMs: number;
  /** Longest wait for a probe's answer (default half of silenceMs). */
  readonly probeTimeoutMs?: number;
  /** One cheap REST request (the open API's server time). */
  readonly probe: () => Promise<unknown>;
  readonly now: () => number;
  /** The exchange became unreachable (`down`) or answered again; `forMs` is how long it was down. */
  readonly onChange: (change: LivenessChange) => void;
}

/** A change of reachability. */
export type LivenessChange =
  | { readonly down: true; readonly reason: string; readonly silentMs: number }
  | { readonly down: false; readonly reason: string; readonly forMs: number };

/** Watches stream silence and probes REST. Call {@link heard} on every stream message and {@link check} about once a second. */
export class ExchangeLiveness {
  readonly #o: LivenessOptions;
  readonly #probeTimeoutMs: number;
  #lastHeard: number;
  #probing = false;
  #lastProbeAt = -Infinity;
  /** Why the last probe sent after `#lastHeard` failed, if one did. */
  #probeFailure: string | undefined;
  #downSince: number | undefined;

  constructor(o: LivenessOptions) {
    this.#o = o;
    this.#probeTimeoutMs = o.probeTimeoutMs ?? Math.max(1, Math.floor(o.silenceMs / 2));
    this.#lastHeard = o.now();
  }

  /** True while the exchange is held unreachable. */
  get down(): boolean {
    return this.#downSince !== undefined;
  }

  /** A stream delivered a message. */
  heard(): void {
    this.#lastHeard = this.#o.now();
    this.#probeFailure = undefined;
  }

  /** Evaluates the rule; sends a probe when one is due. Never throws. */
  check(): void {
    const now = this.#o.now();
    const half = this.#o.silenceMs / 2;
    if (this.#downSince === undefined) {
      const silent = now - this.#lastHeard;
      if (silent >= this.#o.silenceMs && this.#probeFailure !== undefined) {
        this.#downSince = now;
        const s = Math.round(silent / 1000);
        this.#o.onChange({ down: true, silentMs: silent, reason: `exchange unreachable: no stream message for ${s} s and no answer to a REST probe (${this.#probeFailure})` });
        return;
      }
      if (silent >= half && this.#lastProbeAt <= this.#lastHeard) this.#sendProbe(now);
      return;
    }
    if (now - this.#lastProbeAt >= half) this.#sendProbe(now);
  }

  #sendProbe(now: number): void {
    if (this.#probing) return;
    this.#probing = true;
    this.#lastProbeAt = now;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${this.#probeTimeoutMs} ms`)), this.#probeTimeoutMs);
      timer.unref();
    });
    Promise.race([this.#o.probe(), timeout])
      .then(() => this.#answered())
      .catch((err: unknown) => {
        this.#probeFailure = err instanceof Error ? err.message : String(err);
      })
      .finally(() => {
        clearTimeout(timer);
        this.#probing = false;
      });
  }

  #answered(): void {
    const now = this.#o.now();
    // An answer proves REST is up: the silence alone (a quiet market) is no outage.
    this.#lastHeard = Math.max(this.#lastHeard, now);
    this.#probeFailure = undefined;
    const since = this.#downSince;
    if (since === undefined) return;
    this.#downSince = undefined;
    const forMs = now - since;
    this.#o.onChange({ down: false, forMs, reason: `exchange answered again after ${Math.round(forMs / 1000)} s unreachable` });
  }
}
