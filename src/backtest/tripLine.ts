/**
 * A round trip's JSON line, written directly: the same text JSON.stringify gives for its
 * RoundTrip (a month of minute bars spools 15k trips at the end of the run).
 */
import { JsonNames, jsonNumber } from './jsonNames.js';
import type { RoundTrip } from './result.js';

/** Builds the JSON lines of round trips (RoundTrip's keys in order). */
export class TripLines {
  readonly #names = new JsonNames();

  /** JSON.stringify of `trip`. */
  line(trip: RoundTrip): string {
    const n = this.#names;
    // The amount texts are bigDecimalText's: digits, a sign, a dot or NaN, nothing JSON escapes.
    return `{"strategy":${n.json(trip.strategy)},"symbol":${n.json(trip.symbol)},"side":${n.json(trip.side)},"entryT":${jsonNumber(trip.entryT)},"exitT":${jsonNumber(trip.exitT)},"qty":"${trip.qty}","entryPrice":"${trip.entryPrice}","exitPrice":"${trip.exitPrice}","pnl":"${trip.pnl}","fees":"${trip.fees}","returnPct":${jsonNumber(trip.returnPct)}}`;
  }
}
