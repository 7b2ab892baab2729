/**
 * One typed error hierarchy. Every error has a stable `code` so callers switch on it
 * instead of parsing messages.
 */

/** Codes of every kancil error. */
export const ErrorCode = {
  EXCHANGE: 'EXCHANGE',
  AUTHENTICATION: 'AUTHENTICATION',
  RATE_LIMITED: 'RATE_LIMITED',
  UNKNOWN_OUTCOME: 'UNKNOWN_OUTCOME',
  VALIDATION: 'VALIDATION',
  NETWORK: 'NETWORK',
  CONFIG: 'CONFIG',
  PARSE: 'PARSE',
  STREAM: 'STREAM',
  STATE: 'STATE',
  DELIVERY: 'DELIVERY',
} as const;
export type ErrorCodeName = keyof typeof ErrorCode;

/** Base of every error kancil throws. */
export abstract class KancilError extends Error {
  abstract readonly code: ErrorCodeName;
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** The exchange answered with a failure (non-2XX or an envelope code != 0). */
export class ExchangeError extends KancilError {
  readonly code = ErrorCode.EXCHANGE;
  constructor(
    readonly httpStatus: number,
    readonly exchangeCode: number | string | undefined,
    readonly exchangeMsg: string,
    readonly endpoint: string,
  ) {
    super(`${endpoint}: HTTP ${httpStatus}${exchangeCode !== undefined ? ` code ${exchangeCode}` : ''}: ${exchangeMsg}`);
  }
}

/** Wrong key, bad signature or a key not allowed for the security type (401/403 with auth meaning). */
export class AuthenticationError extends KancilError {
  readonly code = ErrorCode.AUTHENTICATION;
  constructor(
    readonly httpStatus: number,
    readonly endpoint: string,
    detail: string,
  ) {
    super(`${endpoint}: authentication refused (HTTP ${httpStatus}): ${detail}`);
  }
}

/**
 * A rate limit was hit (429), the IP is banned (418), or the client refuses locally
 * because a Retry-After has not passed yet. `retryAfterMs` is how long to wait.
 */
export class RateLimitedError extends KancilError {
  readonly code = ErrorCode.RATE_LIMITED;
  constructor(
    readonly endpoint: string,
    readonly retryAfterMs: number,
    /** Epoch ms until which the host refuses (418 ban), or undefined for a plain 429. */
    readonly bannedUntil: number | undefined,
    readonly httpStatus: number | undefined,
    detail = '',
  ) {
    super(`${endpoint}: rate limited${httpStatus ? ` (HTTP ${httpStatus})` : ' (client-side)'}, retry after ${retryAfterMs} ms${detail ? `: ${detail}` : ''}`);
  }
}

/**
 * The request may or may not have taken effect (5XX or timeout on a non-idempotent call).
 * Never treat as failed: reconcile by clientId first.
 */
export class UnknownOutcomeError extends KancilError {
  readonly code = ErrorCode.UNKNOWN_OUTCOME;
  constructor(
    readonly endpoint: string,
    readonly reason: string,
    readonly clientId: string | undefined,
    readonly httpStatus: number | undefined,
    options?: { cause?: unknown },
  ) {
    super(`${endpoint}: outcome unknown (${reason})${clientId ? ` for clientId ${clientId}` : ''}; reconcile before retrying`, options);
  }
}

/** A value broke a rule before anything was sent. Names the field, the value and the rule. */
export class ValidationError extends KancilError {
  readonly code = ErrorCode.VALIDATION;
  constructor(
    readonly field: string,
    readonly value: unknown,
    readonly rule: string,
  ) {
    super(`invalid ${field}=${safeJson(value)}: ${rule}`);
  }
}

/** The connection failed before any byte of a request could have been processed, or a GET timed out. */
export class NetworkError extends KancilError {
  readonly code = ErrorCode.NETWORK;
  constructor(
    readonly endpoint: string,
    detail: string,
    options?: { cause?: unknown },
  ) {
    super(`${endpoint}: network error: ${detail}`, options);
  }
}

/** A configuration file is wrong; names file, document path and value. */
export class ConfigError extends KancilError {
  readonly code = ErrorCode.CONFIG;
  constructor(
    readonly file: string,
    readonly path: string,
    readonly value: unknown,
    readonly rule: string,
  ) {
    // An error of the whole file (unreadable, not YAML) has no field and value to name.
    super(path === '' && value === undefined ? `${file}: ${rule}` : `${file}: ${path || '<root>'}=${safeJson(value)}: ${rule}`);
  }
}

/** A payload from the exchange could not be parsed; names the field and value. */
export class ParseError extends KancilError {
  readonly code = ErrorCode.PARSE;
  constructor(
    readonly field: string,
    readonly value: unknown,
    readonly rule: string,
  ) {
    super(`cannot parse ${field}=${safeJson(value)}: ${rule}`);
  }
}

/** A recording (or another data file) is cut short or corrupt; names the file and where: the line or the byte. */
export class RecordingError extends KancilError {
  readonly code = ErrorCode.PARSE;
  constructor(
    readonly file: string,
    readonly where: string,
    problem: string,
    options?: { cause?: unknown },
  ) {
    super(`${file}: ${where}: ${problem}`, options);
  }
}

/** A WebSocket control request failed (the spec's control-message error codes). */
export class StreamError extends KancilError {
  readonly code = ErrorCode.STREAM;
  constructor(
    readonly streamCode: number,
    readonly streamMsg: string,
  ) {
    super(`stream error ${streamCode}: ${streamMsg}`);
  }
}

/** An operation is not allowed in the current state (e.g. a book not ready, a closed client). */
export class StateError extends KancilError {
  readonly code = ErrorCode.STATE;
}

/**
 * A notification was not delivered: the message names the channel and the HTTP status (never the
 * URL, which carries the credential); `retryAfterMs` is how long the channel asked us to wait (429).
 */
export class DeliveryError extends KancilError {
  readonly code = ErrorCode.DELIVERY;
  constructor(
    message: string,
    readonly retryAfterMs?: number,
  ) {
    super(message);
  }
}

function safeJson(v: unknown): string {
  try {
    const s = typeof v === 'string' ? JSON.stringify(v) : JSON.stringify(v) ?? String(v);
    return s.length > 200 ? `${s.slice(0, 200)}…` : s;
  } catch {
    return String(v);
  }
}
