/**
 * Progress of a replay: a cli-progress bar with items/s and ETA when the output is a terminal,
 * plain periodic lines otherwise (logs, CI). Progress is the share of the input files' bytes read
 * (as stored: compressed bytes of a gzip file) of their sizes, known from stat before the run:
 * nothing is read ahead to count lines, so a day's recording starts at once, and the ETA follows
 * the read rate, which stays even through a file (its compression ratio does).
 */
import { stat } from 'node:fs/promises';
import { createRequire } from 'node:module';
import type CliProgress from 'cli-progress';

/** Total size in bytes of the files a run reads: the progress total. */
export async function totalBytes(files: readonly string[]): Promise<number> {
  let n = 0;
  for (const f of files) n += (await stat(f)).size;
  return n;
}

/** Where a run is: bytes of its files read, items replayed. */
export interface ProgressState {
  readonly bytes: number;
  readonly items: number;
}

/** A progress reporter. */
export interface Progress {
  update(s: ProgressState): void;
  stop(s: ProgressState): void;
}

/**
 * Seconds left at the rate so far, as text: "unknown" before anything was read (no rate yet) or
 * once everything is read (only the last items remain; nothing to extrapolate), never a made-up 0s.
 */
export function etaText(done: number, total: number, elapsedMs: number): string {
  if (done <= 0 || elapsedMs <= 0 || done >= total) return 'unknown';
  const s = Math.ceil(((total - done) * elapsedMs) / done / 1000);
  return s >= 3600 ? `${Math.floor(s / 3600)}h ${Math.floor((s % 3600) / 60)}m` : s >= 60 ? `${Math.floor(s / 60)}m ${s % 60}s` : `${s}s`;
}

/** Bytes as MB with one decimal (the unit a recording's size is thought of in). */
function mb(bytes: number): string {
  return `${(bytes / 1e6).toFixed(1)} MB`;
}

const itemRate = (items: number, ms: number): number => (ms > 0 ? Math.round((items / ms) * 1000) : 0);

/** Formats a plain progress line; `final` for the last one, which says what was done rather than an ETA. */
export function progressLine(s: ProgressState, totalBytes: number, elapsedMs: number, final = false): string {
  const rate = itemRate(s.items, elapsedMs);
  if (final) return `replayed ${s.items} items in ${(elapsedMs / 1000).toFixed(1)}s (${rate} items/s)`;
  const pct = totalBytes > 0 ? Math.min(100, (s.bytes / totalBytes) * 100) : 0;
  return `replayed ${s.items} items, read ${mb(s.bytes)} of ${mb(totalBytes)} (${pct.toFixed(1)}%) ${rate} items/s ETA ${etaText(s.bytes, totalBytes, elapsedMs)}`;
}

/** Bar on a TTY, lines every `everyMs` otherwise. `now` is the wall clock (progress is about real time). */
export function createProgress(total: number, out: { isTTY?: boolean; write(s: string): unknown }, everyMs = 5000, now: () => number = Date.now): Progress {
  const t0 = now();
  if (out.isTTY) {
    // Loaded for a terminal only (16 modules). Our own rate and ETA in the payload: cli-progress's
    // would read NULL or INF before a rate exists.
    const cliProgress = createRequire(import.meta.url)('cli-progress') as typeof CliProgress;
    const bar = new cliProgress.SingleBar(
      { format: 'replay |{bar}| {percentage}% of {size} read | {items} items | {rate} items/s | ETA {etaText}', hideCursor: true, stream: out as NodeJS.WritableStream },
      cliProgress.Presets.shades_classic,
    );
    const payload = (s: ProgressState) => {
      const ms = now() - t0;
      return { size: mb(total), items: s.items, rate: itemRate(s.items, ms), etaText: etaText(s.bytes, total, ms) };
    };
    // The bar counts bytes (one count for a run of several files); a total of 0 (empty files) is 1 so it can end at 100 %.
    bar.start(Math.max(total, 1), 0, payload({ bytes: 0, items: 0 }));
    return {
      update: (s) => bar.update(Math.min(s.bytes, total), payload(s)),
      stop: (s) => {
        // The end is 100 %, wherever the reads were (a window's end stops early).
        bar.update(Math.max(total, 1), { ...payload(s), etaText: 'done' });
        bar.stop();
      },
    };
  }
  let last = t0;
  return {
    update: (s) => {
      const t = now();
      if (t - last < everyMs) return;
      last = t;
      out.write(`${progressLine(s, total, t - t0)}\n`);
    },
    stop: (s) => void out.write(`${progressLine(s, total, now() - t0, true)}\n`),
  };
}
