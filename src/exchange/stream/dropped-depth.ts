/**
 * Which local books a dropped (unreadable) market payload may have belonged to. A diff-depth
 * update that is dropped leaves its book silently wrong until the next diff shows the gap, which
 * in a quiet market can be minutes; naming the books lets them resynchronise at once.
 */
import { streamNameSymbol } from './stream-names.js';

/** A market payload the stream client dropped as malformed, and the diff-depth books it may have changed. */
export interface DroppedPayload {
  /** Stream name, when the envelope or a raw single-stream connection gave it. */
  readonly stream: string | undefined;
  /**
   * Symbols (the caller's spelling) whose diff-depth update this may have been: the one named by
   * the stream or payload, none when it is known to be another kind of event, and every diff-depth
   * symbol of the connection when it cannot be told.
   */
  readonly depthSymbols: readonly string[];
  /** The payload's final update id `u`, when it could be read: a resync needs a snapshot at least this new. */
  readonly finalUpdateId: number | undefined;
  /** Why it was dropped. */
  readonly reason: string;
}

/** True for a diff-depth stream name (`x@depth`, `x@depth@100ms`), false for partial depth and the rest. */
export function isDiffDepthStream(name: string): boolean {
  return /@depth(?:@\d+ms)?$/.test(name);
}

/**
 * The envelope's stream name at the start of a frame that is not valid JSON (a truncated or
 * corrupted combined-stream message), when it is one of the connection's streams.
 */
function envelopeStream(text: string, streams: readonly string[]): string | undefined {
  const m = /^\s*\{\s*"stream"\s*:\s*"([^"\\]+)"/.exec(text);
  const name = m?.[1];
  return name !== undefined && streams.includes(name) ? name : undefined;
}

/**
 * Attributes a dropped payload. `doc` is the parsed JSON (undefined when the text did not parse),
 * `stream` the stream name known from the envelope or connection, `streams` the connection's
 * streams and `symbolOf` the client's wire-to-caller symbol mapping.
 */
export function attributeDropped(
  text: string,
  doc: unknown,
  stream: string | undefined,
  streams: readonly string[],
  symbolOf: (wire: string) => string,
  reason: string,
): DroppedPayload {
  const named = stream ?? (doc === undefined ? envelopeStream(text, streams) : undefined);
  const data = typeof doc === 'object' && doc !== null && !Array.isArray(doc) ? (doc as Record<string, unknown>) : undefined;
  const u = data?.u;
  const finalUpdateId = typeof u === 'number' && Number.isSafeInteger(u) ? u : typeof u === 'string' && /^\d+$/.test(u) ? Number(u) : undefined;
  const ofStream = (name: string): string[] => {
    const wire = isDiffDepthStream(name) ? streamNameSymbol(name) : undefined;
    return wire === undefined ? [] : [symbolOf(wire.toUpperCase())];
  };
  if (named !== undefined) return { stream: named, depthSymbols: ofStream(named), finalUpdateId, reason };
  if (data !== undefined && typeof data.e === 'string' && data.e !== 'depthUpdate') return { stream: undefined, depthSymbols: [], finalUpdateId: undefined, reason };
  if (data?.e === 'depthUpdate' && typeof data.s === 'string') return { stream: undefined, depthSymbols: [symbolOf(data.s)], finalUpdateId, reason };
  // Unattributable (not JSON, no envelope, no readable event type or symbol): any of the
  // connection's diff-depth streams may have lost an update, so every one of their books resyncs
  // (an update id read from such a payload could belong to any of them, so none is kept).
  return { stream: undefined, depthSymbols: streams.flatMap(ofStream), finalUpdateId: undefined, reason };
}
