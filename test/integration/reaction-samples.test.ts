import { describe, expect, it } from 'vitest';
import { classifyFrame, clientSeq, clientSeqInBody, FrameKind, Pairs } from '../../bench/reactionSamples.js';

const trade = (p: string, t: number | string): Buffer => Buffer.from(JSON.stringify({ stream: 'btcusdt@trade', data: { e: 'trade', E: 1765100000000, s: 'BTCUSDT', t, p, q: '0.00100000', T: 1765100000000, m: false, M: true } }));
const report = (x: string, t: number): Buffer =>
  Buffer.from(JSON.stringify({ subscriptionId: 0, event: { e: 'executionReport', E: 1, s: 'BTC_USDT', c: 'reaction-12', p: '60000.00', x, X: 'NEW', T: 1765100000000, t, I: 0 } }));
const depth = Buffer.from(JSON.stringify({ stream: 'btcusdt@depth', data: { e: 'depthUpdate', E: 1, s: 'BTCUSDT', U: 1, u: 2, b: [['60000.00', '1']], a: [] } }));

/** What the bench decided by decoding each frame before its probe stopped keeping them. */
function byJson(data: Buffer): { kind: FrameKind; id: number } {
  const m = JSON.parse(data.toString()) as { data?: Record<string, unknown>; event?: Record<string, unknown> };
  const d = (m.data ?? m.event ?? m) as Record<string, unknown>;
  if (d.e === 'trade') return { kind: d.p === '60000.00' || d.p === '60000' ? FrameKind.tick : FrameKind.trade, id: Number(d.t) };
  if (d.e === 'executionReport' && d.x === 'TRADE') return { kind: FrameKind.fill, id: Number(d.t) };
  return { kind: FrameKind.other, id: NaN };
}

describe('reaction bench frame probe', () => {
  const tick = Buffer.from('60000');
  const frames = [trade('60000.00', 1001), trade('60000', 7), trade('59000.00', 1002), trade('600000.00', 3), trade('60000.10', 4), trade('6000.00', 5), trade('60000.00', '42'), report('TRADE', 1002), report('NEW', -1), report('EXPIRED', -1), depth];

  it('classifies each frame and reads its trade id as decoding it does', () => {
    const out = new Float64Array(1);
    for (const f of frames) {
      const want = byJson(f);
      const kind = classifyFrame(f, tick, out);
      expect({ frame: f.toString(), kind }).toEqual({ frame: f.toString(), kind: want.kind });
      if (kind !== FrameKind.other) expect(out[0]).toBe(want.id);
    }
  });

  it('reads the sequence number of a generated clientId, in a string or a form body', () => {
    expect(clientSeq('reaction-17')).toBe(17);
    expect(clientSeq('reaction-k3x-205')).toBe(205);
    expect(clientSeq('reaction')).toBeNaN();
    expect(clientSeq('reaction-')).toBeNaN();
    expect(clientSeqInBody('symbol=BTC_USDT&clientId=reaction-9&side=BUY')).toBe(9);
    expect(clientSeqInBody('clientId=reaction-31')).toBe(31);
    expect(clientSeqInBody('symbol=BTC_USDT&origClientId=reaction-9')).toBeNaN();
    expect(clientSeqInBody(undefined)).toBeNaN();
  });

  it('keeps pairs up to its room, leaves out id-less ones and counts what it drops', () => {
    const p = new Pairs(2);
    p.push(1, 10);
    p.push(NaN, 11);
    p.push(1, 12);
    p.push(2, 13);
    expect([p.n, p.dropped, [...p.toMap()]]).toEqual([2, 1, [[1, 12]]]);
    p.reset(4);
    expect([p.n, p.dropped, p.keys.length]).toEqual([0, 0, 4]);
  });
});
