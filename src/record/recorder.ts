/**
 * Records chosen streams of chosen symbols: every delivered frame verbatim with its local receive
 * time, plus REST depth snapshots at start, periodically, and at the start of every rotated file,
 * so a replay can begin at any file. One stream connection per host (symbol type).
 */
import { type Logger, pino } from 'pino';
import type { Clock } from '../core/clock.js';
import { systemClock } from '../core/clock.js';
import type { SymbolTypeCode } from '../core/enums.js';
import { streamSymbol } from '../core/symbols.js';
import type { OrderBookSnapshot } from '../core/types.js';
import type { DepthSnapshotSource } from '../exchange/stream/apis.js';
import { StreamClient } from '../exchange/stream/stream-client.js';
import { streamHostFor } from '../exchange/stream/stream-names.js';
import type { RecordConfig } from './config.js';
import { formatEnvelopeLine, nowNs, snapshotStream } from './format.js';
import { RecordingWriter } from './writer.js';
import { scrubSecretText } from '../core/secretScrub.js';

/** Serialises a parsed snapshot back to the wire shape (decimal strings, exact). */
export function snapshotJson(s: OrderBookSnapshot): string {
  const lv = (l: OrderBookSnapshot['bids']): string => JSON.stringify(l.map((x) => [x.price.toFixed(), x.qty.toFixed()]));
  return `{"lastUpdateId":${s.lastUpdateId},"bids":${lv(s.bids)},"asks":${lv(s.asks)}}`;
}

/** Dependencies of a recorder. */
export interface RecorderDeps {
  readonly snapshots: DepthSnapshotSource;
  readonly clock?: Clock;
  readonly logger?: Logger;
}

/** Counters. */
export interface RecorderStats {
  frames: number;
  snapshots: number;
  snapshotErrors: number;
}

/** A running recorder. */
export class Recorder {
  readonly stats: RecorderStats = { frames: 0, snapshots: 0, snapshotErrors: 0 };
  readonly writer: RecordingWriter;
  readonly #clients: StreamClient[] = [];
  readonly #log: Logger;
  readonly #clock: Clock;
  #snapTimer: ReturnType<typeof setInterval> | undefined;
  #statusTimer: ReturnType<typeof setInterval> | undefined;
  #stopped = false;
  /** Snapshots written into the current file: it is not rotated before it holds one per symbol. */
  #snapshotsInFile = 0;
  readonly #inFlight = new Set<Promise<void>>();

  constructor(
    private readonly cfg: RecordConfig,
    private readonly deps: RecorderDeps,
  ) {
    this.#log = deps.logger ?? pino({ hooks: { streamWrite: scrubSecretText }, name: 'kancil.record' });
    this.#clock = deps.clock ?? systemClock;
    const first = cfg.symbols[0];
    this.writer = new RecordingWriter({
      dir: cfg.out,
      prefix: cfg.prefix ?? (first ? streamSymbol(first.symbol, first.type) : 'recording'),
      header: { source: cfg.urls.stream_url, symbols: cfg.symbols.map((s) => s.symbol), streams: cfg.streams },
      maxBytes: cfg.rotate.maxBytes,
      maxMs: cfg.rotate.maxMs,
      clock: this.#clock,
      // A fresh snapshot at the start of every file makes each file replayable alone.
      mayRotate: () => this.#snapshotsInFile >= this.cfg.symbols.length,
      onNewFile: (file) => {
        this.#snapshotsInFile = 0;
        this.#log.info({ file }, 'recording file opened');
        // The first file gets the start-up snapshot; later ones need their own.
        if (this.writer.files.length > 1) queueMicrotask(() => this.snapshotAll());
      },
    });
  }

  /** Connects and starts recording. */
  start(): void {
    const byType = new Map<SymbolTypeCode, string[]>();
    for (const s of this.cfg.symbols) {
      const list = byType.get(s.type) ?? [];
      for (const suffix of this.cfg.streams) list.push(`${streamSymbol(s.symbol, s.type)}@${suffix}`);
      byType.set(s.type, list);
    }
    if (this.cfg.extraStreams.length > 0) byType.set(1, [...(byType.get(1) ?? []), ...this.cfg.extraStreams]);
    for (const [type, streams] of byType) {
      const client = new StreamClient({
        url: streamHostFor(this.cfg.urls, type),
        streams,
        name: `record:type${type}`,
        logger: this.#log,
        onFrame: (text) => {
          this.stats.frames++;
          this.#write(`${nowNs(this.#clock.now())} ${text}\n`);
        },
      });
      client.status$.subscribe((s) => {
        this.#log.info({ connection: s.connection, status: s.status, reason: s.reason }, 'recorder connection');
        // After a reconnect the diffs have a gap: record a fresh snapshot so replays resync there.
        if (s.status === 'up' && s.reason === 'reconnected') this.snapshotAll();
      });
      client.start();
      this.#clients.push(client);
    }
    this.snapshotAll();
    if (this.cfg.snapshot.everyMs > 0) this.#snapTimer = setInterval(() => this.snapshotAll(), this.cfg.snapshot.everyMs);
    if (this.cfg.statusEveryMs > 0) this.#statusTimer = setInterval(() => this.#printStatus(), this.cfg.statusEveryMs);
  }

  #printStatus(): void {
    process.stdout.write(`${JSON.stringify({ recording: true, frames: this.stats.frames, snapshots: this.stats.snapshots, lines: this.writer.lines, files: this.writer.files })}\n`);
  }

  #write(line: string): void {
    if (this.#stopped) return;
    this.writer.write(line);
  }

  /** Fetches and records a REST snapshot of every symbol. */
  snapshotAll(): void {
    if (this.#stopped) return;
    for (const s of this.cfg.symbols) {
      const p = this.deps.snapshots
        .depth({ symbol: s.symbol, symbolType: s.type, limit: this.cfg.snapshot.limit })
        .then((snap) => {
          this.stats.snapshots++;
          this.#write(formatEnvelopeLine(nowNs(this.#clock.now()), snapshotStream(streamSymbol(s.symbol, s.type)), snapshotJson(snap)));
          this.#snapshotsInFile++;
        })
        .catch((err: unknown) => {
          this.stats.snapshotErrors++;
          this.#log.warn({ symbol: s.symbol, err: (err as Error).message }, 'depth snapshot for the recording failed');
        });
      this.#inFlight.add(p);
      void p.finally(() => this.#inFlight.delete(p));
    }
  }

  /** Stops receiving, waits for snapshots in flight, and flushes every buffered line to disk. */
  async stop(): Promise<void> {
    if (this.#snapTimer) clearInterval(this.#snapTimer);
    if (this.#statusTimer) clearInterval(this.#statusTimer);
    await Promise.all(this.#clients.map((c) => c.close()));
    await Promise.all([...this.#inFlight]);
    this.#stopped = true;
    await this.writer.close();
    if (this.cfg.statusEveryMs > 0) this.#printStatus();
  }
}
