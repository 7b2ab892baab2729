/**
 * The chaos soak, bounded and seeded (about half a minute; `npm run soak` runs it at length): a live
 * `kancil run` child trades two symbols while every fault the sandbox offers is injected, REST
 * answers are corrupted through a proxy and the bot is SIGKILLed and restarted. Afterwards the
 * sandbox's records and the bot's ledger must agree: no duplicate order, no lost fill, no orphan
 * open order, no garbage row, and balances equal. See test/soak/chaos.ts.
 */
import { describe, expect, it } from 'vitest';
import { FAULT_KINDS, formatReport, runChaos } from '../soak/chaos.js';

describe('chaos soak', () => {
  it('faults of every kind, kills and restarts: the ledger and the exchange agree', async () => {
    // Faults at most 0.75 s apart for 18 s: 20+ of them, so every kind at least once (one round of
    // each); kills at most 6.75 s apart: two before the end.
    const report = await runChaos({ seed: 17, durationMs: 18_000, faultEveryMs: 500, killEveryMs: 4500 });
    const text = formatReport(report);
    console.log(text);
    expect(report.orders, text).toBeGreaterThanOrEqual(50);
    expect(Object.keys(report.faults).sort(), text).toEqual([...FAULT_KINDS].sort());
    expect(report.kills, text).toBeGreaterThanOrEqual(2);
    expect({ duplicateOrders: report.duplicateOrders, lostFills: report.lostFills, orphanOpenOrders: report.orphanOpenOrders, garbageRows: report.garbageRows, balanceMismatches: report.balanceMismatches }, `${text}\n${report.lastOutput}`).toEqual({
      duplicateOrders: 0,
      lostFills: 0,
      orphanOpenOrders: 0,
      garbageRows: 0,
      balanceMismatches: 0,
    });
    // The clean last run stops on SIGTERM with 0.
    expect(report.stopCodes.at(-1), text).toBe(0);
  }, 180_000);
});
