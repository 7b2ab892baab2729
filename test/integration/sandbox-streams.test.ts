/**
 * The sandbox's WebSocket side over real sockets: raw and combined market streams fed by the
 * engine, live control messages (byte for byte), diff depth U/u continuity checked with the
 * spec's book procedure, partial depth, tickers and klines, user data on listen keys and on the
 * WebSocket API (token expiry -> eventStreamTerminated), pings, pong deadline, lifetime, faults.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { Decimal } from '../../src/core/index.js';
import { type RunningSandbox, startSandbox } from '../../src/sandbox/index.js';
import { ManualClock, TEST_ACCOUNTS, testSandboxConfig } from '../../src/sandbox/test-config.js';
import { signedQuery } from '../../src/sandbox/test-signing.js';

const A = TEST_ACCOUNTS.alice;
const B = TEST_ACCOUNTS.bob;
let sbx: RunningSandbox;
const lvl = (p: string, q: string): { price: Decimal; qty: Decimal } => ({ price: new Decimal(p), qty: new Decimal(q) });

/** A socket with a message queue and a waiter. */
class Client {
  readonly messages: string[] = [];
  readonly #waiters: (() => void)[] = [];
  closed: { code: number; reason: string } | undefined;
  pings = 0;
  constructor(readonly ws: WebSocket) {
    ws.on('message', (d) => {
      this.messages.push(d.toString());
      for (const w of this.#waiters.splice(0)) w();
    });
    ws.on('ping', () => this.pings++);
    ws.on('close', (code, reason) => {
      this.closed = { code, reason: reason.toString() };
      for (const w of this.#waiters.splice(0)) w();
    });
  }
  static async open(url: string, opts: WebSocket.ClientOptions = {}): Promise<Client> {
    const ws = new WebSocket(url, opts);
    const c = new Client(ws);
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    return c;
  }
  /** Waits until a message satisfies `pred` (consuming messages before it); fails after `ms`. */
  async next(pred: (m: Record<string, unknown>, raw: string) => boolean = () => true, ms = 5000): Promise<Record<string, unknown>> {
    const deadline = Date.now() + ms;
    while (true) {
      while (this.messages.length > 0) {
        const raw = this.messages.shift() as string;
        const m = JSON.parse(raw) as Record<string, unknown>;
        if (pred(m, raw)) return m;
      }
      if (this.closed) throw new Error(`socket closed ${JSON.stringify(this.closed)}`);
      const left = deadline - Date.now();
      if (left <= 0) throw new Error('no matching message in time');
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, left);
        this.#waiters.push(() => {
          clearTimeout(t);
          resolve();
        });
      });
    }
  }
  async nextRaw(ms = 5000): Promise<string> {
    let out = '';
    await this.next((_m, raw) => ((out = raw), true), ms);
    return out;
  }
  async waitClose(ms = 5000): Promise<{ code: number; reason: string }> {
    const deadline = Date.now() + ms;
    while (!this.closed) {
      if (Date.now() > deadline) throw new Error('socket did not close');
      await new Promise((r) => setTimeout(r, 20));
    }
    return this.closed;
  }
  send(o: unknown): void {
    this.ws.send(typeof o === 'string' ? o : JSON.stringify(o));
  }
  close(): void {
    this.ws.terminate();
  }
}

async function signedPost(path: string, params: string, key: string, secret: string): Promise<Record<string, unknown>> {
  const r = await fetch(`${sbx.urls.base_url}${path}?${signedQuery(params, secret)}`, { method: 'POST', headers: { 'X-MBX-APIKEY': key } });
  return (await r.json()) as Record<string, unknown>;
}

beforeAll(async () => {
  sbx = await startSandbox(testSandboxConfig(), { quiet: true });
  sbx.state.exec((e, now) => {
    e.applyDepthSnapshot('BTC_USDT', { bids: [lvl('59990', '1'), lvl('59980', '2')], asks: [lvl('60010', '1'), lvl('60020', '2')] }, now);
    e.applyDepthSnapshot('ALCH_IDR', { bids: [lvl('529', '100')], asks: [lvl('531', '100')] }, now);
  });
});
afterAll(async () => {
  await sbx.stop();
});

describe('market streams', () => {
  it('raw trade and aggTrade, combined envelope, from real engine activity', async () => {
    const raw = await Client.open(`${sbx.urls.stream_url}/ws/btcusdt@trade`);
    const comb = await Client.open(`${sbx.urls.stream_url}/stream?streams=btcusdt@aggTrade/btcusdt@trade`);
    try {
      await signedPost('/open/v1/orders', 'symbol=BTC_USDT&side=0&type=2&quantity=1.5', B.apiKey, B.secret);
      const t = await raw.next();
      expect(Object.keys(t).sort()).toEqual(['E', 'M', 'T', 'a', 'b', 'e', 'm', 'p', 'q', 's', 't'].sort());
      expect(t).toMatchObject({ e: 'trade', s: 'BTCUSDT', p: '60010', q: '1', m: false });
      const t2 = await raw.next();
      expect(t2).toMatchObject({ p: '60020', q: '0.5' });
      // The combined connection carries both streams, each wrapped as {stream, data}.
      const tr = await comb.next((m) => m.stream === 'btcusdt@trade');
      expect(tr.data).toMatchObject({ e: 'trade', p: '60010' });
      const agg = await comb.next((m) => m.stream === 'btcusdt@aggTrade');
      expect(agg.data).toMatchObject({ e: 'aggTrade', s: 'BTCUSDT', p: '60010', q: '1', m: false });
      expect(Object.keys(agg.data as object).sort()).toEqual(['E', 'M', 'T', 'a', 'e', 'f', 'l', 'm', 'p', 'q', 's'].sort());
    } finally {
      raw.close();
      comb.close();
    }
  });

  it('type 3 symbols stream on {stream_url_new} with the underscore kept', async () => {
    const c = await Client.open(`${sbx.urls.stream_url_new}/ws/alch_idr@trade`);
    try {
      await signedPost('/open/v1/orders', 'symbol=ALCH_IDR&side=1&type=2&quantity=20', B.apiKey, B.secret);
      expect(await c.next()).toMatchObject({ e: 'trade', s: 'ALCH_IDR', p: '529', q: '20', m: true });
    } finally {
      c.close();
    }
  });

  it('live control messages: SUBSCRIBE, LIST, GET/SET_PROPERTY and errors byte for byte', async () => {
    const c = await Client.open(`${sbx.urls.stream_url}/ws`);
    const s = await Client.open(`${sbx.urls.stream_url}/stream?streams=btcusdt@trade`);
    try {
      c.send({ method: 'SUBSCRIBE', params: ['btcusdt@trade', 'btcusdt@depth5@100ms'], id: 1 });
      expect(await c.nextRaw()).toBe('{"result":null,"id":1}');
      c.send({ method: 'LIST_SUBSCRIPTIONS', id: 2 });
      expect(await c.next((m) => m.id === 2)).toEqual({ result: ['btcusdt@trade', 'btcusdt@depth5@100ms'], id: 2 });
      c.send({ method: 'UNSUBSCRIBE', params: ['btcusdt@depth5@100ms'], id: 3 });
      expect(await c.next((m) => m.id === 3)).toEqual({ result: null, id: 3 });
      c.send({ method: 'GET_PROPERTY', params: ['combined'], id: 4 });
      expect(await c.next((m) => m.id === 4)).toEqual({ result: false, id: 4 });
      s.send({ method: 'GET_PROPERTY', params: ['combined'], id: 5 });
      expect(await s.next((m) => m.id === 5)).toEqual({ result: true, id: 5 });
      c.send('{"method":"SUBSCRIB","params":[],"id":6}');
      expect(await c.nextRaw()).toBe('{"code":2,"msg":"Invalid request: unknown variant SUBSCRIB, expected one of SUBSCRIBE, UNSUBSCRIBE, LIST_SUBSCRIPTIONS, SET_PROPERTY, GET_PROPERTY at line 1 column 20","id":6}');
      c.send('{"method":"SET_PROPERTY","params":["combined","yes"],"id":7}');
      expect(await c.nextRaw()).toBe('{"code":1,"msg":"Invalid value type: expected Boolean","id":7}');
      c.send('{"method":');
      expect(await c.nextRaw()).toBe('{"code":3,"msg":"Invalid JSON: EOF while parsing a value at line 1 column 10"}');
      // params is "array of stream names": a bare string is refused, not taken as a one-element list.
      c.send('{"method":"SUBSCRIBE","params":"btcusdt@depth","id":9}');
      expect(await c.nextRaw()).toBe('{"code":2,"msg":"Invalid request: invalid type: string \\"btcusdt@depth\\", expected a sequence at line 1 column 46","id":9}');
      c.send('{"method":"LIST_SUBSCRIPTIONS","id":"x"}');
      expect(await c.nextRaw()).toBe('{"code":2,"msg":"Invalid request: request ID must be an unsigned integer"}');
      c.send({ method: 'SET_PROPERTY', params: ['combined', true], id: 8 });
      expect(await c.next((m) => m.id === 8)).toEqual({ result: null, id: 8 });
      await signedPost('/open/v1/orders', 'symbol=BTC_USDT&side=1&type=2&quantity=0.01', B.apiKey, B.secret);
      expect(await c.next((m) => 'stream' in m)).toMatchObject({ stream: 'btcusdt@trade', data: { e: 'trade', p: '59990' } });
    } finally {
      c.close();
      s.close();
    }
  });

  it('diff depth @100ms: U/u consecutive, and snapshot + diffs by the spec procedure equal the book', async () => {
    const c = await Client.open(`${sbx.urls.stream_url}/ws/btcusdt@depth@100ms`);
    try {
      // Activity before the snapshot (buffered by the client) and after it.
      sbx.state.exec((e, now) => e.applyDepthDiff('BTC_USDT', { bids: [lvl('59970', '3')], asks: [] }, now));
      await c.next((m) => m.e === 'depthUpdate');
      const snap = (await (await fetch(`${sbx.urls.market_url}/api/v3/depth?symbol=BTCUSDT&limit=1000`)).json()) as { lastUpdateId: number; bids: string[][]; asks: string[][] };
      for (let i = 0; i < 5; i++) {
        sbx.state.exec((e, now) => e.applyDepthDiff('BTC_USDT', { bids: [lvl(String(59960 - i), String(i + 1))], asks: [lvl('60030', String(i))] }, now));
        await signedPost('/open/v1/orders', `symbol=BTC_USDT&side=0&type=1&timeInForce=1&quantity=0.0${i + 1}&price=5990${i}`, A.apiKey, A.secret);
      }
      const bids = new Map(snap.bids.map(([p, q]) => [p as string, q as string]));
      const asks = new Map(snap.asks.map(([p, q]) => [p as string, q as string]));
      let prevU: number | undefined;
      const target = sbx.engine.depth('BTC_USDT', 1000).lastUpdateId;
      while (true) {
        const m = (await c.next((x) => x.e === 'depthUpdate')) as { U: number; u: number; b: string[][]; a: string[][] };
        if (m.u <= snap.lastUpdateId) continue;
        if (prevU === undefined) expect(m.U <= snap.lastUpdateId + 1 && m.u >= snap.lastUpdateId + 1).toBe(true);
        else expect(m.U).toBe(prevU + 1);
        prevU = m.u;
        const apply = (side: Map<string, string>, levels: string[][]): void => {
          for (const [p, q] of levels) {
            if (q === '0') side.delete(p as string);
            else side.set(p as string, q as string);
          }
        };
        apply(bids, m.b);
        apply(asks, m.a);
        if (m.u >= target) break;
      }
      const book = sbx.engine.depth('BTC_USDT', 1000);
      const sortDesc = (m: Map<string, string>): string[][] => [...m].sort((x, y) => new Decimal(y[0]).cmp(x[0])).map(([p, q]) => [p, q]);
      const sortAsc = (m: Map<string, string>): string[][] => [...m].sort((x, y) => new Decimal(x[0]).cmp(y[0])).map(([p, q]) => [p, q]);
      expect(sortDesc(bids)).toEqual(book.bids.map((l) => [l.price.toFixed(), l.qty.toFixed()]));
      expect(sortAsc(asks)).toEqual(book.asks.map((l) => [l.price.toFixed(), l.qty.toFixed()]));
    } finally {
      c.close();
    }
  });

  it('a depth gap fault makes the next U skip ahead', async () => {
    const c = await Client.open(`${sbx.urls.stream_url}/ws/btcusdt@depth@100ms`);
    try {
      sbx.state.exec((e, now) => e.applyDepthDiff('BTC_USDT', { bids: [lvl('59950', '1')], asks: [] }, now));
      const first = (await c.next((m) => m.e === 'depthUpdate')) as { u: number };
      sbx.faults.skipDepthUpdates('BTC_USDT', 1);
      sbx.state.exec((e, now) => e.applyDepthDiff('BTC_USDT', { bids: [lvl('59950', '2')], asks: [] }, now));
      sbx.state.exec((e, now) => e.applyDepthDiff('BTC_USDT', { bids: [lvl('59950', '3')], asks: [] }, now));
      const after = (await c.next((m) => m.e === 'depthUpdate')) as { U: number };
      expect(after.U).toBeGreaterThan(first.u + 1);
    } finally {
      c.close();
    }
  });

  it('partial depth, mini ticker (and the array), kline payload shapes', async () => {
    const c = await Client.open(`${sbx.urls.stream_url}/stream?streams=btcusdt@depth5@100ms/btcusdt@miniTicker/!miniTicker@arr/btcusdt@kline_1m`);
    try {
      const d = await c.next((m) => m.stream === 'btcusdt@depth5@100ms');
      const data = d.data as { lastUpdateId: number; bids: unknown[]; asks: unknown[] };
      expect(Object.keys(data)).toEqual(['lastUpdateId', 'bids', 'asks']);
      expect(data.bids.length).toBeLessThanOrEqual(5);
      await signedPost('/open/v1/orders', 'symbol=BTC_USDT&side=1&type=2&quantity=0.01', B.apiKey, B.secret);
      const mt = await c.next((m) => m.stream === 'btcusdt@miniTicker');
      expect(Object.keys(mt.data as object).sort()).toEqual(['E', 'c', 'e', 'h', 'l', 'o', 'q', 's', 'v'].sort());
      expect(mt.data).toMatchObject({ e: '24hrMiniTicker', s: 'BTCUSDT' });
      const arr = await c.next((m) => m.stream === '!miniTicker@arr');
      expect((arr.data as { s: string }[]).map((x) => x.s)).toContain('BTCUSDT');
      // Not the closed candle of a minute that ended during the test: the one still open.
      const k = await c.next((m) => m.stream === 'btcusdt@kline_1m' && (m.data as { k: { x: boolean } }).k.x === false, 5000);
      const kk = (k.data as { k: Record<string, unknown> }).k;
      expect(Object.keys(kk).sort()).toEqual(['B', 'L', 'Q', 'T', 'V', 'c', 'f', 'h', 'i', 'l', 'n', 'o', 'q', 's', 't', 'v', 'x'].sort());
      expect(kk).toMatchObject({ i: '1m', s: 'BTCUSDT', x: false });
    } finally {
      c.close();
    }
  });

  it('kline stream: when the minute ends the finished candle is sent once with x=true, then the new one', async () => {
    const clock = new ManualClock(Date.UTC(2026, 0, 5, 12, 0, 30));
    const s = await startSandbox(testSandboxConfig(), { quiet: true, clock });
    const c = await Client.open(`${s.urls.stream_url}/ws/btcusdt@kline_1m`);
    try {
      s.state.exec((e, now) => {
        e.applyTrade('BTC_USDT', { price: new Decimal('60001'), qty: new Decimal('0.5'), isBuyerMaker: false }, now);
        e.applyTrade('BTC_USDT', { price: new Decimal('59999'), qty: new Decimal('0.25'), isBuyerMaker: true }, now);
      });
      const open = (await c.next()) as { k: Record<string, unknown> };
      expect(open.k).toMatchObject({ t: Date.UTC(2026, 0, 5, 12, 0), T: Date.UTC(2026, 0, 5, 12, 1) - 1, o: '60001', h: '60001', l: '59999', c: '59999', v: '0.75', n: 2, x: false, V: '0.5' });
      clock.advance(60_000);
      const closed = (await c.next((m) => (m.k as { x: boolean }).x)) as { k: Record<string, unknown> };
      expect(closed.k).toMatchObject({ t: Date.UTC(2026, 0, 5, 12, 0), x: true, c: '59999', n: 2 });
      const next = (await c.next()) as { k: Record<string, unknown> };
      expect(next.k).toMatchObject({ t: Date.UTC(2026, 0, 5, 12, 1), x: false, o: '59999', c: '59999', v: '0', n: 0 });
    } finally {
      c.close();
      await s.stop();
    }
  });

  it('bad paths and stream names are refused at the upgrade', async () => {
    await expect(Client.open(`${sbx.urls.stream_url}/ws/not-a-stream-or-key`)).rejects.toThrow(/401/);
    await expect(Client.open(`${sbx.urls.stream_url}/stream?streams=btcusdt@bogus`)).rejects.toThrow(/400/);
  });
});

describe('user data', () => {
  it('listen key stream: executionReport and outboundAccountPosition with every spec field; expiry closes it', async () => {
    const created = (await (await fetch(`${sbx.urls.base_url}/open/v1/user-data-stream`, { method: 'POST', headers: { 'X-MBX-APIKEY': A.apiKey } })).json()) as { data: string };
    const c = await Client.open(`${sbx.urls.stream_url}/ws/${created.data}`);
    try {
      await signedPost('/open/v1/orders', 'symbol=BTC_USDT&side=0&type=1&timeInForce=1&quantity=0.01&price=59000&clientId=ud-1', A.apiKey, A.secret);
      const er = await c.next((m) => m.e === 'executionReport');
      expect(Object.keys(er).sort()).toEqual(['e', 'E', 's', 'c', 'S', 'o', 'f', 'q', 'p', 'P', 'F', 'g', 'C', 'x', 'X', 'r', 'i', 'l', 'z', 'L', 'n', 'N', 'T', 't', 'I', 'w', 'm', 'M', 'O', 'Z', 'Y', 'eR'].sort());
      expect(er).toMatchObject({ s: 'BTC_USDT', c: 'ud-1', S: 'BUY', o: 'LIMIT', f: 'GTC', x: 'NEW', X: 'NEW', r: 'NONE', t: -1 });
      const pos = await c.next((m) => m.e === 'outboundAccountPosition');
      expect(Object.keys(pos).sort()).toEqual(['e', 'E', 'm', 't', 'b', 's', 'T', 'W', 'D', 'u', 'B'].sort());
      expect((pos.B as { a: string }[]).map((b) => b.a)).toContain('USDT');
      expect(sbx.faults.expireListenKey(created.data)).toBe(true);
      expect(await c.waitClose()).toEqual({ code: 4001, reason: 'listen key expired' });
      await expect(Client.open(`${sbx.urls.stream_url}/ws/${created.data}`)).rejects.toThrow(/401/);
    } finally {
      c.close();
    }
  });

  it('DELETE of a listen key closes its stream', async () => {
    const url = `${sbx.urls.base_url}/open/v1/user-data-stream`;
    const key = ((await (await fetch(url, { method: 'POST', headers: { 'X-MBX-APIKEY': B.apiKey } })).json()) as { data: string }).data;
    const c = await Client.open(`${sbx.urls.stream_url}/ws/${key}`);
    try {
      expect((await fetch(`${url}?listenKey=${key}`, { method: 'DELETE', headers: { 'X-MBX-APIKEY': B.apiKey } })).status).toBe(200);
      expect((await c.waitClose()).code).toBe(4001);
    } finally {
      c.close();
    }
  });

  it('reorder fault: the next user events arrive in reverse order, then normal order resumes', async () => {
    const created = (await (await fetch(`${sbx.urls.base_url}/open/v1/user-data-stream`, { method: 'POST', headers: { 'X-MBX-APIKEY': B.apiKey } })).json()) as { data: string };
    const c = await Client.open(`${sbx.urls.stream_url}/ws/${created.data}`);
    try {
      const r = await fetch(`${sbx.urls.admin_url}/faults/reorder-user-events`, { method: 'POST', body: '{"count":2}' });
      expect(r.status).toBe(200);
      // One order: its executionReport (first) and the balance update (second) are swapped.
      await signedPost('/open/v1/orders', 'symbol=BTC_USDT&side=0&type=1&timeInForce=1&quantity=0.01&price=59000&clientId=ro-1', B.apiKey, B.secret);
      const first = await c.next();
      const second = await c.next();
      expect([first.e, second.e]).toEqual(['outboundAccountPosition', 'executionReport']);
      await signedPost('/open/v1/orders', 'symbol=BTC_USDT&side=0&type=1&timeInForce=1&quantity=0.01&price=59000&clientId=ro-2', B.apiKey, B.secret);
      expect((await c.next()).e).toBe('executionReport');
    } finally {
      c.close();
    }
  });

  it('order updates follow the symbol type: type 1 on the type 1 key and the WebSocket API, type 3 on the private-n key, type 2 on none', async () => {
    const keyOf = async (path: string): Promise<string> => ((await (await fetch(`${sbx.urls.base_url}${path}`, { method: 'POST', headers: { 'X-MBX-APIKEY': B.apiKey } })).json()) as { data: string }).data;
    const c1 = await Client.open(`${sbx.urls.stream_url}/ws/${await keyOf('/open/v1/user-data-stream')}`);
    const c3 = await Client.open(`${sbx.urls.stream_url_new}/ws/${await keyOf('/open/v1/private-n/user-data-stream')}`);
    const api = await Client.open(sbx.urls.ws_api_url);
    try {
      const tok = (await signedPost('/open/v1/user-listen-token', 'validity=600000', B.apiKey, B.secret)).data as { token: string };
      api.send({ id: 'ty-sub', method: 'userDataStream.subscribe.listenToken', params: { listenToken: tok.token } });
      await api.next((m) => m.id === 'ty-sub');
      const report = (c: Client): Promise<Record<string, unknown>> => c.next((m) => m.e === 'executionReport' || (m.event as { e?: string } | undefined)?.e === 'executionReport');
      const clientIdOf = (m: Record<string, unknown>): unknown => (m.e === 'executionReport' ? m.c : (m.event as { c: unknown }).c);
      for (const [symbol, price, qty, id] of [['ALCH_IDR', '520', '20', 'ty-3'], ['DOGE_IDR', '1900', '10', 'ty-2'], ['BTC_USDT', '59000', '0.01', 'ty-1'], ['ALCH_IDR', '520', '20', 'ty-3b']] as const) {
        const r = await signedPost('/open/v1/orders', `symbol=${symbol}&side=0&type=1&timeInForce=1&quantity=${qty}&price=${price}&clientId=${id}`, B.apiKey, B.secret);
        expect(r.code, id).toBe(0);
      }
      // Each stream's first order update is the first order of its own symbol type: nothing else came before it.
      expect(clientIdOf(await report(c1))).toBe('ty-1');
      expect(clientIdOf(await report(api))).toBe('ty-1');
      expect(clientIdOf(await report(c3))).toBe('ty-3');
      expect(clientIdOf(await report(c3))).toBe('ty-3b');
    } finally {
      c1.close();
      c3.close();
      api.close();
    }
  });

  it('WebSocket API: subscribe with a listen token, events, unsubscribe, token expiry -> eventStreamTerminated', async () => {
    const tok = (await signedPost('/open/v1/user-listen-token', 'validity=600000', A.apiKey, A.secret)).data as { token: string; expirationTime: number };
    const c = await Client.open(sbx.urls.ws_api_url);
    try {
      c.send({ id: 'sub-1', method: 'userDataStream.subscribe.listenToken', params: { listenToken: tok.token } });
      const sub = await c.next((m) => m.id === 'sub-1');
      expect(sub).toMatchObject({ id: 'sub-1', status: 200, result: { subscriptionId: expect.any(Number), expirationTime: tok.expirationTime } });
      const sid = (sub.result as { subscriptionId: number }).subscriptionId;
      await signedPost('/open/v1/orders', 'symbol=BTC_USDT&side=0&type=1&timeInForce=1&quantity=0.01&price=59000&clientId=api-1', A.apiKey, A.secret);
      const ev = await c.next((m) => m.subscriptionId === sid && (m.event as { e: string }).e === 'executionReport');
      expect(ev.event).toMatchObject({ c: 'api-1', x: 'NEW' });
      c.send({ id: 'bad', method: 'userDataStream.subscribe.listenToken', params: { listenToken: 'nope' } });
      expect(await c.next((m) => m.id === 'bad')).toMatchObject({ status: 400, error: { code: expect.any(Number), msg: expect.any(String) } });
      sbx.faults.expireListenToken(tok.token);
      const term = await c.next((m) => (m.event as { e?: string } | undefined)?.e === 'eventStreamTerminated');
      expect(term).toEqual({ subscriptionId: sid, event: { e: 'eventStreamTerminated', E: expect.any(Number) } });
      const tok2 = (await signedPost('/open/v1/user-listen-token', 'validity=600000', A.apiKey, A.secret)).data as { token: string };
      c.send({ id: 'sub-2', method: 'userDataStream.subscribe.listenToken', params: { listenToken: tok2.token } });
      await c.next((m) => m.id === 'sub-2');
      c.send({ id: 'un', method: 'userDataStream.unsubscribe', params: {} });
      expect(await c.next((m) => m.id === 'un')).toMatchObject({ id: 'un', status: 200, result: null });
    } finally {
      c.close();
    }
  });
});

describe('connection upkeep', () => {
  it('server pings; a client that never pongs is dropped; others are closed at the lifetime', async () => {
    const s = await startSandbox(
      testSandboxConfig((d) => {
        // Margins wide enough for a loaded machine: the good client must answer pings well within the deadline.
        d.websocket = { pingIntervalMs: 200, pongTimeoutMs: 1200, connectionLifetimeMs: 3500 };
      }),
      { quiet: true },
    );
    try {
      const silent = await Client.open(`${s.urls.stream_url}/ws/btcusdt@trade`, { autoPong: false });
      const good = await Client.open(`${s.urls.stream_url}/ws/btcusdt@trade`);
      const dropped = await silent.waitClose(5000);
      expect(dropped.code).toBe(1006);
      expect(silent.pings).toBeGreaterThan(0);
      expect(good.closed).toBeUndefined();
      expect(good.pings).toBeGreaterThan(0);
      expect(await good.waitClose(5000)).toEqual({ code: 1000, reason: 'connection lifetime reached' });
    } finally {
      await s.stop();
    }
  });

  it('drop-connections fault (admin HTTP endpoint) closes live sockets', async () => {
    const c = await Client.open(`${sbx.urls.stream_url}/ws/btcusdt@trade`);
    const r = await fetch(`${sbx.urls.admin_url}/faults/drop-connections`, { method: 'POST', body: '{}' });
    expect(((await r.json()) as { dropped: number }).dropped).toBeGreaterThanOrEqual(1);
    expect((await c.waitClose()).code).toBe(1006);
  });
});
