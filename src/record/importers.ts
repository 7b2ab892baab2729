/**
 * Importers from the formats in ../shared/data into the kancil recording format:
 *  - `<ns> <json>` line files (hftbacktest): envelopes kept verbatim, the bare REST snapshot line
 *    wrapped as `<sym>@depthSnapshot`;
 *  - cryptofeed text (`<seconds>: <envelope>` and `<url> -> <seconds>: <snapshot>`);
 *  - kline CSV (12 columns, no header): one closed-kline event per row.
 * All stream with flat memory, reading line by line and writing through gzip.
 */
import { createWriteStream, rmSync } from 'node:fs';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import { ParseError } from '../core/errors.js';
import { type RecordingHeader, formatEnvelopeLine, formatHeaderLine, parseRecordLine, snapshotStream } from './format.js';
import { readLines } from './line-reader.js';

/** Provenance written into the header: keep the licence and source of imported data. */
export interface ImportProvenance {
  readonly source: string;
  readonly licence: string;
}

/**
 * Writes header + lines to a gzip file; resolves with the number of data lines. Each line is
 * terminated (one without its newline would run into the next). No data line at all is an error
 * and leaves no file: a recording that replays nothing is worse than none.
 */
export async function writeRecording(out: string, header: Omit<RecordingHeader, 'format' | 'version'>, lines: AsyncIterable<string>): Promise<number> {
  let n = 0;
  async function* all(): AsyncGenerator<string> {
    // Lines are batched into ~64 KiB chunks: one stream write per line costs more than the gzip.
    let chunk = formatHeaderLine({ format: 'kancil-recording', version: 1, ...header });
    for await (const l of lines) {
      n++;
      chunk += l.endsWith('\n') ? l : `${l}\n`;
      if (chunk.length >= 65_536) {
        yield chunk;
        chunk = '';
      }
    }
    if (chunk.length > 0) yield chunk;
  }
  try {
    await pipeline(Readable.from(all()), createGzip(), createWriteStream(out));
  } catch (e) {
    rmSync(out, { force: true });
    throw e;
  }
  if (n === 0) {
    rmSync(out, { force: true });
    throw noEvents(header.importedFrom);
  }
  return n;
}

/** The error of an import that found no data line; `inputs` names the files. */
export function noEvents(inputs: unknown): ParseError {
  return new ParseError('inputs', inputs, 'no data line to import (empty, or only comments); nothing was written');
}

/**
 * Lines of kancil text recordings (`--from recording`; raw `<ns> <json>` files are such recordings,
 * their bare snapshot lines included), each checked: a line that does not parse refuses the import
 * naming the file and line, instead of writing a file that replays nothing. Header and comment
 * lines are left out (the import writes its own header).
 */
export async function* recordingLines(inputs: readonly string[]): AsyncGenerator<string> {
  for (const file of inputs) {
    let lineNo = 0;
    for await (const line of readLines(file)) {
      lineNo++;
      let rec;
      try {
        rec = parseRecordLine(line);
      } catch (e) {
        throw new ParseError(`${file}:${lineNo}`, line.slice(0, 80), `not a kancil recording line: ${(e as Error).message}`);
      }
      if (rec !== undefined) yield `${line}\n`;
    }
  }
}

/** Seconds with a fraction (`1617566591.326123`) to an integer ns string, exactly. */
export function secondsToNs(s: string): string {
  const m = /^(\d+)(?:\.(\d+))?$/.exec(s.trim());
  if (!m) throw new ParseError('seconds', s, 'expected seconds with an optional fraction');
  const frac = (m[2] ?? '').slice(0, 9).padEnd(9, '0');
  return `${m[1]}${frac}`.replace(/^0+(?=\d)/, '');
}

/** Lines of `<ns> <json>` files, with bare snapshot lines wrapped. `symbol` (stream spelling) names bare snapshots. */
export async function* convertNsLines(inputs: readonly string[], symbol?: string): AsyncGenerator<string> {
  let last = symbol;
  for (const file of inputs) {
    for await (const line of readLines(file)) {
      const rec = parseRecordLine(line);
      if (rec === undefined) continue;
      if (rec.stream !== undefined) {
        if (symbol === undefined && !rec.stream.startsWith('!')) last = rec.stream.slice(0, rec.stream.indexOf('@'));
        // Verbatim: the envelope stays exactly as received.
        yield `${line}\n`;
        continue;
      }
      if (last === undefined) throw new ParseError('symbol', undefined, `${file}: snapshot line before any stream line; pass the symbol`);
      yield formatEnvelopeLine(rec.recvRaw, snapshotStream(last), line.slice(line.indexOf(' ') + 1));
    }
  }
}

/** Lines of a cryptofeed recording. */
export async function* convertCryptofeed(input: string): AsyncGenerator<string> {
  let first = true;
  for await (const line of readLines(input)) {
    if (first) {
      first = false;
      if (line.includes(' <-> ')) continue; // the connection URL line
    }
    if (line.trim() === '') continue;
    const arrow = line.indexOf(' -> ');
    const brace = line.indexOf('{');
    if (arrow >= 0 && arrow < brace) {
      const url = new URL(line.slice(0, arrow));
      const sym = url.searchParams.get('symbol');
      if (sym === null) throw new ParseError('url', url.href, 'snapshot URL without symbol');
      const rest = line.slice(arrow + 4);
      const colon = rest.indexOf(': ');
      yield formatEnvelopeLine(secondsToNs(rest.slice(0, colon)), snapshotStream(sym.toLowerCase()), rest.slice(colon + 2));
      continue;
    }
    const colon = line.indexOf(': ');
    if (colon < 0 || brace < colon) throw new ParseError('line', line.slice(0, 80), 'expected "<seconds>: <json>"');
    yield `${secondsToNs(line.slice(0, colon))} ${line.slice(colon + 2)}\n`;
  }
}

/** Lines from a kline CSV: each row becomes a closed kline event received 1 ms after close time. */
export async function* convertKlineCsv(input: string, symbol: string, interval: string): AsyncGenerator<string> {
  const stream = `${symbol.toLowerCase()}@kline_${interval}`;
  let row = 0;
  for await (const line of readLines(input)) {
    row++;
    if (line.trim() === '') continue;
    const c = line.split(',');
    if (c.length < 11) throw new ParseError(`row ${row}`, line.slice(0, 80), 'expected 12 kline columns');
    const [t, o, h, l, cl, v, T, q, n, V, Q] = c as [string, string, string, string, string, string, string, string, string, string, string];
    // Values are copied into JSON text: refuse anything that is not a plain number.
    for (const [i, x] of [t, o, h, l, cl, v, T, q, n, V, Q].entries()) if (!/^\d+(\.\d+)?$/.test(x)) throw new ParseError(`row ${row} column ${i}`, x, 'not a plain decimal');
    const close = Number(T);
    const E = close + 1;
    // The CSV carries no trade ids: f and L are -1 (the spec's "none" value for trade ids).
    const data = `{"e":"kline","E":${E},"s":"${symbol.toUpperCase()}","k":{"t":${Number(t)},"T":${close},"s":"${symbol.toUpperCase()}","i":"${interval}","f":-1,"L":-1,"o":"${o}","c":"${cl}","h":"${h}","l":"${l}","v":"${v}","n":${Number(n)},"x":true,"q":"${q}","V":"${V}","Q":"${Q}","B":"0"}}`;
    yield formatEnvelopeLine(`${E}000000`, stream, data);
  }
}
