/**
 * What the parity suite watches in a live or paper run (bench/parityRuns.ts): when market data
 * reaches the strategy, when it places and cancels, and each order's latency on the replay's clock.
 */
import { writeFileSync } from 'node:fs';
import { defineStrategy, type StrategyPlugin } from '../src/strategy/types.js';

/** What a watched strategy saw: its start (wall ms) and when market data reached it. */
export interface Seen {
  startWall?: number;
  /** When the sandbox sent the first trade or diff the strategy got (wall ms): trades held back while the run started come after its start. */
  firstSentWall?: number;
  /** The first trade or diff the strategy got (`t<trade id>` or `d<final update id>`). */
  firstKey?: string;
  /** Wall ms from the sandbox sending each trade to the strategy getting it. */
  trades: number[];
  /** Each depth diff's last update id and the wall ms the strategy got it. */
  depth: { u: number; at: number }[];
  /** When each of its fills reached the strategy (wall ms), by `clientId/tradeId`. */
  fills: Map<string, number>;
  /** Where the sandbox's replay stood (recorded receive ms) when each fill reached the strategy, by `clientId/tradeId`. */
  fillsReplayed: Map<string, number | undefined>;
  /**
   * Per order (clientId): when the strategy placed it (wall ms), the last market event it had seen
   * (`t<trade id>` or `d<final update id>`) and when, and where the sandbox's replay stood then.
   */
  placed: Map<string, Asked>;
  /** Each cancel, in the order the strategy asked for them: the order's clientId and the same moment. */
  cancels: (Asked & { clientId: string })[];
  /** The sandbox's replay clock (MarketFeed.replayedTo), once it runs. */
  replayedTo: () => number | undefined;
  /**
   * The strategy gets no event before the replay reaches this recorded ms: a run that starts
   * sooner than the one it is compared with starts at the same market instant (undefined: at once).
   */
  notBefore?: number;
}

/** A moment a strategy asked for something: wall ms, the last market event it had seen and when, where the replay stood. */
export interface Asked {
  wall: number;
  seen: string;
  seenWall: number;
  replayedTo: number | undefined;
}

/** Wraps a plugin to note when it started and when market data reached it. */
export function watched(inner: StrategyPlugin, seen: Seen): StrategyPlugin {
  return defineStrategy({
    name: inner.name,
    description: inner.description,
    params: inner.params,
    // The kline streams the run subscribes to are the inner plugin's; every other event reaches it
    // (it reads what it reads), so the watch sees trades and diffs.
    ...(inner.klineIntervals ? { klineIntervals: (p: unknown) => inner.klineIntervals?.(p) ?? [] } : {}),
    create: (ctx) => {
      let last = { key: '', wall: 0 };
      const asked = (): Asked => ({ wall: Date.now(), seen: last.key, seenWall: last.wall, replayedTo: seen.replayedTo() });
      const place = (req: Parameters<typeof ctx.place>[0]): string => {
        const id = ctx.place(req);
        seen.placed.set(id, asked());
        return id;
      };
      const cancel = (symbol: string, clientId: string): void => {
        seen.cancels.push({ ...asked(), clientId });
        ctx.cancel(symbol, clientId);
      };
      const h = inner.create(new Proxy(ctx, { get: (t, k) => (k === 'place' ? place : k === 'cancel' ? cancel : (Reflect.get(t, k, t) as unknown)) }) as never);
      return {
        onStart: () => {
          seen.startWall = Date.now();
          h.onStart?.();
        },
        onEvent: (e) => {
          if (seen.notBefore !== undefined && (seen.replayedTo() ?? -Infinity) < seen.notBefore) return;
          if ((e.type === 'trade' || e.type === 'depthDiff') && seen.firstSentWall === undefined) {
            seen.firstSentWall = e.E;
            seen.firstKey = e.type === 'trade' ? `t${e.tradeId}` : `d${e.finalUpdateId}`;
          }
          if (e.type === 'trade') seen.trades.push(Date.now() - e.E);
          if (e.type === 'depthDiff') seen.depth.push({ u: e.finalUpdateId, at: Date.now() });
          if (e.type === 'fill') {
            seen.fills.set(`${e.clientId}/${e.tradeId}`, Date.now());
            seen.fillsReplayed.set(`${e.clientId}/${e.tradeId}`, seen.replayedTo());
          }
          if (e.type === 'trade' || e.type === 'depthDiff') last = { key: e.type === 'trade' ? `t${e.tradeId}` : `d${e.finalUpdateId}`, wall: Date.now() };
          h.onEvent(e);
        },
        onStop: () => h.onStop?.(),
      };
    },
  });
}
/**
 * Per order of a live run: wall ms from sending to the engine, and from the engine to the
 * acknowledgement; per market event, its feed latency (wall ms); and per order in placing order,
 * its latency on the replay's clock (recorded ms, replayLatency; undefined when not measured).
 */
export interface Latencies {
  entry: number[];
  ack: number[];
  feed: number[];
  /** Per fill, wall ms from the sandbox's engine making it to the strategy getting it (the user data stream's way). */
  fill: number[];
  /** The same on the replay's clock (recorded ms): how far the market moved before the strategy heard of each fill. */
  fillReplay: number[];
  perOrder: (number | undefined)[];
  /** Per order in placing order, where the replay stood when the strategy placed it (recorded ms). */
  placedReplay: (number | undefined)[];
  /** Per cancel in asking order, the same. */
  cancelReplay: (number | undefined)[];
  /** Per cancel in asking order, the same (undefined also for a cancel that found its order ended). */
  perCancel: (number | undefined)[];
}

/**
 * An order's (or a cancel's, by `key`) latency on the replay's clock (recorded ms): from the market
 * it answered to the market it met. It answered the last event its strategy saw when it placed the order at once (within
 * 1 ms: an event-driven order), else the market at the moment it placed it (a timer); it met every
 * message the replay had applied when it reached the engine, so it arrives 1 ms after the last of
 * them (in a backtest an order due at an item's time goes before that item). Measured this way, not
 * in wall ms: under load the sandbox's replay falls behind its schedule in bursts, and an order
 * meets the replay where it stands, not where the wall clock says it should.
 */
export function replayLatency(placed: Asked | undefined, replayedAt: ReadonlyMap<string, number | undefined>, key: string): number | undefined {
  const arrived = replayedAt.get(key);
  if (placed === undefined || arrived === undefined) return undefined;
  const from = placed.wall - placed.seenWall <= 1 ? replayedAt.get(placed.seen) : placed.replayedTo;
  return from === undefined ? undefined : Math.max(0, arrived - from) + 1;
}

export const quantile = (xs: readonly number[], q: number): number | undefined => (xs.length === 0 ? undefined : [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))]);
export const median = (xs: readonly number[]): number | undefined => quantile(xs, 0.5);

/** Writes latencies (ms) to a file, one a line, for a `{ file, order: 'recorded' }` latency. */
export function latencyFile(file: string, xs: readonly number[]): string {
  writeFileSync(file, `${xs.map((x) => Math.max(0, Math.round(x))).join('\n')}\n`);
  return file;
}
