/**
 * Progress of a replay: a cli-progress bar with events/s and ETA when the output is a terminal,
 * plain periodic lines otherwise (logs, CI). The total comes from a fast pre-count of lines.
 */
import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { createGunzip } from 'node:zlib';
import cliProgress from 'cli-progress';

/** Counts the lines of (possibly gzip) files without parsing them: the progress total. */
export async function countLines(files: readonly string[]): Promise<number> {
  let n = 0;
  for (const f of files) {
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

/** Formats a plain progress line. */
export function progressLine(done: number, total: number, elapsedMs: number): string {
  const rate = elapsedMs > 0 ? (done / elapsedMs) * 1000 : 0;
  const pct = total > 0 ? Math.min(100, (done / total) * 100) : 0;
  const eta = rate > 0 && total > done ? Math.ceil((total - done) / rate) : 0;
  return `replayed ${done}/${total} (${pct.toFixed(1)}%) ${Math.round(rate)} events/s ETA ${eta}s`;
}

/** Bar on a TTY, lines every `everyMs` otherwise. `now` is the wall clock (progress is about real time). */
export function createProgress(total: number, out: { isTTY?: boolean; write(s: string): unknown }, everyMs = 5000, now: () => number = Date.now): Progress {
  const t0 = now();
  if (out.isTTY) {
    const bar = new cliProgress.SingleBar(
      { format: 'replay |{bar}| {percentage}% {value}/{total} events | {rate} events/s | ETA {eta_formatted}', hideCursor: true, stream: out as NodeJS.WritableStream },
      cliProgress.Presets.shades_classic,
    );
    bar.start(total, 0, { rate: 0 });
    return {
      update: (done) => bar.update(done, { rate: Math.round((done / Math.max(1, now() - t0)) * 1000) }),
      stop: (done) => {
        bar.update(done, { rate: Math.round((done / Math.max(1, now() - t0)) * 1000) });
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
    stop: (done) => void out.write(`${progressLine(done, total, now() - t0)}\n`),
  };
}
