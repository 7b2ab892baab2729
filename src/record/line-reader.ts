/**
 * Streams the lines of a (possibly gzip-compressed) file with flat memory: one decompressed
 * chunk at a time, with back-pressure from the async iteration.
 */
import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import process from 'node:process';
import type { Transform } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { RecordingError } from '../core/errors.js';

/** True when the file starts with gzip's magic bytes. */
export async function isGzip(path: string): Promise<boolean> {
  const fh = await open(path, 'r');
  try {
    const buf = Buffer.alloc(2);
    const { bytesRead } = await fh.read(buf, 0, 2, 0);
    return bytesRead === 2 && buf[0] === 0x1f && buf[1] === 0x8b;
  } finally {
    await fh.close();
  }
}

/**
 * A gunzip stream writing 256 KiB pieces (zlib's default is 16 KiB: sixteen times the async
 * steps and batches for the same data). zlib is loaded at the first gzip read, not at every
 * start (~2 ms of a start that reads plain files or none).
 */
export function gunzipStream(): Transform {
  return process.getBuiltinModule('node:zlib').createGunzip({ chunkSize: 256 * 1024 });
}

/**
 * The error of a read of `file` that failed at line `lineNo` (1-based) after `bytesRead` bytes of
 * the file: a gzip stream cut short (a copy interrupted, a disk full) or corrupt says so, naming
 * the place, rather than zlib's bare "unexpected end of file".
 */
export function readFailure(file: string, err: unknown, lineNo: number, bytesRead: number, gzip: boolean): RecordingError {
  const why = err instanceof Error ? err.message : String(err);
  const problem = gzip ? `the gzip data is cut short or corrupt (${why}) within the first ${bytesRead} bytes of the file` : `read failed (${why}) after ${bytesRead} bytes`;
  return new RecordingError(file, `line ${lineNo}`, problem, { cause: err });
}

/** Where a read adds the bytes of the file it has read, as stored (compressed for gzip). */
export interface ByteCount {
  bytes?: number;
}

/**
 * Yields the lines of `path` in batches (one batch per decompressed chunk, without line
 * terminators); gzip is detected by its magic bytes. Batching keeps the per-line cost of async
 * iteration out of the hot path of replays. `count` (optional) gets the file's bytes as read.
 */
export async function* readLineBatches(path: string, count?: ByteCount): AsyncGenerator<string[]> {
  const file = createReadStream(path, { highWaterMark: 256 * 1024 });
  // Decompressed as the file is read (sixteen times the string joins in zlib's default pieces).
  const gzip = await isGzip(path);
  const source = gzip ? file.pipe(gunzipStream()) : file;
  const decoder = new StringDecoder('utf8');
  let rest = '';
  let counted = 0;
  let lineNo = 0;
  try {
    for await (const chunk of chunksOf(source, (err) => readFailure(path, err, lineNo + 1, file.bytesRead, gzip))) {
      const text = rest + decoder.write(chunk);
      const batch: string[] = [];
      let start = 0;
      let nl = text.indexOf('\n', start);
      while (nl >= 0) {
        const end = nl > start && text.charCodeAt(nl - 1) === 13 ? nl - 1 : nl;
        batch.push(text.slice(start, end));
        start = nl + 1;
        nl = text.indexOf('\n', start);
      }
      rest = text.slice(start);
      if (count !== undefined) counted = addBytesRead(count, file, counted);
      lineNo += batch.length;
      if (batch.length > 0) yield batch;
    }
    rest += decoder.end();
    if (rest.length > 0) yield [rest];
  } finally {
    file.destroy();
    if (source !== file) source.destroy();
  }
}

/** The chunks of `source`; an error of the read becomes `failure(err)`. */
export async function* chunksOf(source: NodeJS.ReadableStream, failure: (err: unknown) => Error): AsyncGenerator<Buffer> {
  const it = (source as AsyncIterable<Buffer>)[Symbol.asyncIterator]();
  for (;;) {
    let r: IteratorResult<Buffer>;
    try {
      r = await it.next();
    } catch (err) {
      throw failure(err);
    }
    if (r.done === true) return;
    yield r.value;
  }
}

/**
 * Adds to `count` the bytes `file` read since `counted` (its count at the last call), and returns
 * its count now. Added, not set: reads of several files may share `count` and interleave.
 */
export function addBytesRead(count: ByteCount, file: { readonly bytesRead: number }, counted: number): number {
  count.bytes = (count.bytes ?? 0) + file.bytesRead - counted;
  return file.bytesRead;
}

/** Yields each line of `path` without its line terminator; `count` as {@link readLineBatches}. */
export async function* readLines(path: string, count?: ByteCount): AsyncGenerator<string> {
  for await (const batch of readLineBatches(path, count)) yield* batch;
}
