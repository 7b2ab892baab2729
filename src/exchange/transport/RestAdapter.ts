/**
 * The one request template both REST interfaces go through: admit (local limits) -> prepare
 * (build and sign) -> send -> observe headers -> map HTTP failures -> unwrap envelope -> parse.
 * The interface-specific steps (signing, envelope, rate-limit policy) come from an
 * {@link InterfaceProfile}; everything about outcomes and retries is decided here, once.
 */
import {
  AuthenticationError,
  ExchangeError,
  NetworkError,
  type RateLimitedError,
  UnknownOutcomeError,
  type Clock,
  ParseError,
  KancilError,
  systemClock,
} from '../../core/index.js';
import { type EnvelopeKind, type Unwrapped, failureCode, failureMessage, parseJsonBody, unwrapEnvelope } from './envelope.js';
import type { HttpMethod, HttpResponse, HttpTransport } from './HttpTransport.js';
import type { WireParams } from './wire.js';
import { backoffDelay } from '../stream/timing.js';

/** Security of an endpoint: none, API key header only, or key plus signature. */
export type CallAuth = 'none' | 'key' | 'signed';

/** Everything needed to make one call; built by the clients' endpoint methods. */
export interface CallSpec {
  /** `METHOD /path` used in errors, logs and as the legacy rate-limit key. */
  readonly endpoint: string;
  readonly method: HttpMethod;
  /** Base URL of the host (may carry a path prefix). */
  readonly baseUrl: string;
  /** Path below the base URL, starting with `/`. */
  readonly path: string;
  readonly query?: WireParams;
  readonly body?: WireParams;
  readonly auth: CallAuth;
  /**
   * Whether the call may be repeated without effect. Only idempotent calls are retried; for
   * the others a 5XX, a timeout or a broken connection after sending is an UnknownOutcomeError.
   */
  readonly idempotent: boolean;
  /** The client id to reconcile by when the outcome is unknown. */
  readonly clientId?: string;
  readonly envelope: EnvelopeKind;
  /** recvWindow override for this call (open API). */
  readonly recvWindow?: number;
}

/** What a profile produces for one attempt. */
export interface PreparedRequest {
  /** Path plus query string, relative to the origin. */
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: string;
}

/** Interface-specific parts of the template. */
export interface InterfaceProfile {
  /** Throws RateLimitedError when a local limit refuses the call (nothing is sent). */
  admit(call: CallSpec, origin: string): void;
  /** Builds (and signs) one attempt; called again for each retry so timestamps and nonces are fresh. */
  prepare(call: CallSpec, basePath: string): PreparedRequest;
  /** Records rate-limit headers of any response. */
  observe(call: CallSpec, origin: string, response: HttpResponse): void;
  /** A RateLimitedError when the response says a limit was hit (after recording any block), else undefined. */
  rateLimited(call: CallSpec, origin: string, response: HttpResponse, body: unknown): RateLimitedError | undefined;
  /**
   * Asked once per call when the server refused it with an ExchangeError: true when the profile
   * repaired the cause (e.g. measured the clock offset again) and the refusal was definite, so the
   * same call may be sent once more, freshly prepared. `preparedAt` is when the refused attempt
   * was signed. Optional; without it nothing is retried.
   */
  recover?(call: CallSpec, error: ExchangeError, preparedAt: number): Promise<boolean>;
}

/** Bounded exponential backoff for idempotent calls. */
export interface RetryPolicy {
  /** Total attempts including the first (default 3). */
  readonly attempts: number;
  /** First delay (default 250 ms); doubles each retry. */
  readonly baseDelayMs: number;
  /** Cap on one delay (default 2000 ms). */
  readonly maxDelayMs: number;
}

/** Default retry policy for GETs. */
export const DEFAULT_RETRY: RetryPolicy = { attempts: 3, baseDelayMs: 250, maxDelayMs: 2_000 };

/** The subset of a pino logger the transport uses; secrets are never passed to it. */
export interface TransportLogger {
  debug(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
}

/** Settings of one adapter. */
export interface RestAdapterOptions {
  readonly transport: HttpTransport;
  readonly profile: InterfaceProfile;
  readonly timeoutMs: number;
  readonly retry?: RetryPolicy;
  readonly clock?: Clock;
  readonly logger?: TransportLogger;
}

/** Parses the unwrapped payload into a domain value. */
export type ResultParser<T> = (data: unknown, envelope: Unwrapped['envelope']) => T;

/** Executes {@link CallSpec}s through a profile. */
export class RestAdapter {
  readonly #o: RestAdapterOptions;
  readonly #retry: RetryPolicy;
  readonly #clock: Clock;
  /** Origin and path prefix of each base URL, parsed once: a URL parse per order showed in profiles. */
  readonly #bases = new Map<string, { origin: string; basePath: string }>();

  constructor(options: RestAdapterOptions) {
    this.#o = options;
    this.#retry = options.retry ?? DEFAULT_RETRY;
    this.#clock = options.clock ?? systemClock;
  }

  /** Runs one call and parses its result. See the file comment for the steps. */
  async call<T>(call: CallSpec, parse: ResultParser<T>): Promise<T> {
    const { origin, basePath } = this.#base(call.baseUrl);
    const attempts = call.idempotent ? Math.max(1, this.#retry.attempts) : 1;
    let recovered = false;
    for (let attempt = 1; ; attempt++) {
      const last = attempt >= attempts;
      this.#o.profile.admit(call, origin);
      const started = this.#clock.now();
      const prepared = this.#o.profile.prepare(call, basePath);
      const sent = await this.#o.transport.send({
        method: call.method,
        origin,
        path: prepared.path,
        headers: prepared.headers,
        body: prepared.body,
        timeoutMs: this.#o.timeoutMs,
      });
      if (!sent.ok) {
        this.#o.logger?.warn({ endpoint: call.endpoint, attempt, failure: sent.kind, detail: sent.detail }, 'request failed');
        // A connect failure means nothing reached the server, so even a POST has no effect.
        if (sent.kind !== 'connect' && !call.idempotent) {
          throw new UnknownOutcomeError(call.endpoint, sent.kind === 'timeout' ? `timeout after ${this.#o.timeoutMs} ms` : sent.detail, call.clientId, undefined, { cause: sent.cause });
        }
        if (!last) {
          await this.#backoff(attempt);
          continue;
        }
        throw new NetworkError(call.endpoint, `${sent.kind}: ${sent.detail}`, { cause: sent.cause });
      }
      const res = sent.response;
      this.#o.logger?.debug({ endpoint: call.endpoint, status: res.status, ms: this.#clock.now() - started, attempt }, 'response');
      this.#o.profile.observe(call, origin, res);
      let body: unknown;
      let jsonError: ParseError | undefined;
      try {
        body = parseJsonBody(call.endpoint, res.body);
      } catch (e) {
        if (!(e instanceof ParseError)) throw e;
        jsonError = e;
      }
      const limited = this.#o.profile.rateLimited(call, origin, res, body);
      if (limited) throw limited;
      // A 2XX whose body is not JSON was spoiled on the way (a proxy, a cut connection): an
      // idempotent call is asked again like after a 5XX; for the others the outcome is unknown.
      if (jsonError && call.idempotent && !last && res.status >= 200 && res.status < 300) {
        this.#o.logger?.warn({ endpoint: call.endpoint, attempt }, 'unreadable response body; asking again');
        await this.#backoff(attempt);
        continue;
      }
      if (res.status === 401) throw new AuthenticationError(401, call.endpoint, failureMessage(body) || res.body.slice(0, 200));
      if (res.status >= 500) {
        if (!call.idempotent) throw new UnknownOutcomeError(call.endpoint, `HTTP ${res.status}`, call.clientId, res.status);
        if (!last) {
          await this.#backoff(attempt);
          continue;
        }
        throw new ExchangeError(res.status, failureCode(body), failureMessage(body) || res.body.slice(0, 200), call.endpoint);
      }
      try {
        if (res.status < 200 || res.status >= 300) {
          throw new ExchangeError(res.status, failureCode(body), failureMessage(body) || res.body.slice(0, 200), call.endpoint);
        }
        return this.#finish(call, res.status, body, jsonError, parse);
      } catch (e) {
        // One repaired retry per call, whatever the idempotency: the profile says yes only to a
        // refusal that proves nothing was done.
        if (recovered || !(e instanceof ExchangeError) || !this.#o.profile.recover) throw e;
        recovered = true;
        if (!(await this.#o.profile.recover(call, e, started))) throw e;
        this.#o.logger?.warn({ endpoint: call.endpoint, code: e.exchangeCode }, 'refused for a cause now repaired; sending once more');
        attempt--;
      }
    }
  }

  #base(baseUrl: string): { origin: string; basePath: string } {
    let b = this.#bases.get(baseUrl);
    if (b === undefined) {
      const url = new URL(baseUrl);
      b = { origin: url.origin, basePath: url.pathname.replace(/\/+$/, '') };
      this.#bases.set(baseUrl, b);
    }
    return b;
  }

  #finish<T>(call: CallSpec, status: number, body: unknown, jsonError: ParseError | undefined, parse: ResultParser<T>): T {
    try {
      if (jsonError) throw jsonError;
      const { data, envelope } = unwrapEnvelope(call.envelope, call.endpoint, status, body);
      return parse(data, envelope);
    } catch (e) {
      // A 2XX to a non-idempotent call means the server acted; if we cannot read what it did,
      // the outcome is unknown to us, not failed. An explicit failure envelope stays an ExchangeError.
      if (!call.idempotent && e instanceof KancilError && !(e instanceof ExchangeError)) {
        throw new UnknownOutcomeError(call.endpoint, `unreadable success response: ${e.message}`, call.clientId, status, { cause: e });
      }
      throw e;
    }
  }

  async #backoff(attempt: number): Promise<void> {
    // Equal jitter spreads retries of several clients so they do not arrive together.
    const ms = backoffDelay(attempt - 1, { initialMs: this.#retry.baseDelayMs, maxMs: this.#retry.maxDelayMs });
    await new Promise<void>((resolve) => setTimeout(resolve, ms));
  }
}
