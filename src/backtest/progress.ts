/**
 * Progress of a replay: a cli-progress bar with events/s and ETA when the output is a terminal,
 * plain periodic lines otherwise (logs, CI). The total comes from a fast pre-count of lines.
 */
import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { createGunzip } from 'node:zlib';
import type CliProgress from 'cli-progress';
import { countBinaryRecords, isBinaryRecording } from '../record/binary/reader.js';

/** Counts the lines of (possibly gzip) files without parsing them: the progress total. */
export async function countLines(files: readonly string[]): Promise<number> {
  let n = 0;
  for (const f of files) {
    // A binary recording (record/binary) counts its data records: each is one line of the text.
    if (await isBinaryRecording(f)) {
      n += await countBinaryRecords(f);
      continue;
    }
    const fh = await open(f, 'r');
    const magic = Buffer.alloc(2);
    await fh.read(magic, 0, 2, 0);
    await fh.close();
    const raw = createReadStream(f);
    const src = magic[0] === 0x1f && magic[1] === 0x8b ? raw.pipe(createGunzip()) : raw;
    for await (const chunk of src as AsyncIterable<Buffer>) {
      for (let i = chunk.indexOf(10); i >= 0; i = chunk.indexOf(10, i + 1)) n++;
    }
  }
  return n;
}

/** A progress reporter. */
export interface Progress {
  update(done: number): void;
  stop(done: number): void;
}

/**
 * Seconds left at the rate so far, as text: "unknown" before anything was replayed (no rate yet)
 * or once the count is passed (the pre-count was short, nothing to extrapolate), never a made-up 0s.
 */
export function etaText(done: number, total: number, elapsedMs: number): string {
  if (done <= 0 || elapsedMs <= 0 || done >= total) return 'unknown';
  const s = Math.ceil(((total - done) * elapsedMs) / done / 1000);
  return s >= 3600 ? `${Math.floor(s / 3600)}h ${Math.floor((s % 3600) / 60)}m` : s >= 60 ? `${Math.floor(s / 60)}m ${s % 60}s` : `${s}s`;
}

/** Formats a plain progress line; `final` for the last one, which says what was done rather than an ETA. */
export function progressLine(done: number, total: number, elapsedMs: number, final = false): string {
  const rate = elapsedMs > 0 ? Math.round((done / elapsedMs) * 1000) : 0;
  if (final) return `replayed ${done} items in ${(elapsedMs / 1000).toFixed(1)}s (${rate} items/s)`;
  const pct = total > 0 ? Math.min(100, (done / total) * 100) : 0;
  return `replayed ${done}/${total} (${pct.toFixed(1)}%) ${rate} items/s ETA ${etaText(done, total, elapsedMs)}`;
}

/** Bar on a TTY, lines every `everyMs` otherwise. `now` is the wall clock (progress is about real time). */
export function createProgress(total: number, out: { isTTY?: boolean; write(s: string): unknown }, everyMs = 5000, now: () => number = Date.now): Progress {
  const t0 = now();
  if (out.isTTY) {
    // Loaded for a terminal only (16 modules). Our own rate and ETA in the payload: cli-progress's
    // would read NULL or INF before a rate exists.
    const cliProgress = createRequire(import.meta.url)('cli-progress') as typeof CliProgress;
    const bar = new cliProgress.SingleBar(
      { format: 'replay |{bar}| {percentage}% {value}/{total} items | {rate} items/s | ETA {etaText}', hideCursor: true, stream: out as NodeJS.WritableStream },
      cliProgress.Presets.shades_classic,
    );
    const payload = (done: number) => {
      const ms = now() - t0;
      return { rate: ms > 0 ? Math.round((done / ms) * 1000) : 0, etaText: etaText(done, total, ms) };
    };
    bar.start(total, 0, payload(0));
    return {
      update: (done) => bar.update(done, payload(done)),
      stop: (done) => {
        // The end is 100 %, whatever the pre-count said (a window's end stops early).
        bar.setTotal(done);
        bar.update(done, { ...payload(done), etaText: 'done' });
        bar.stop();
      },
    };
  }
  let last = t0;
  return {
    update: (done) => {
      const t = now();
      if (t - last < everyMs) return;
      last = t;
      out.write(`${progressLine(done, total, t - t0)}\n`);
    },
    stop: (done) => void out.write(`${progressLine(done, total, now() - t0, true)}\n`),
  };
}
