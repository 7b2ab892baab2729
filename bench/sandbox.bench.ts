/**
 * Sandbox benchmark (no npm peer is named for it; absolute numbers are reported):
 *  1. Orders per second through the open API over loopback: one keep-alive undici Client sends
 *     signed POST /open/v1/orders one after another (each request waits for its answer, as a
 *     careful bot does). Every reply is checked (code 0, status NEW) before the rate counts.
 *  2. WebSocket events per second fanned out to 50 subscribers of one trade stream: trades are
 *     pushed through the engine in bursts; every subscriber must receive every trade id in order.
 */
import { createHmac } from 'node:crypto';
import { loadavg } from 'node:os';
import { Client } from 'undici';
import WebSocket from 'ws';
import { Decimal } from '../src/core/index.js';
import { startSandbox } from '../src/sandbox/index.js';
import { TEST_ACCOUNTS, testSandboxConfig } from '../src/sandbox/test-config.js';
import { type BenchReport, fmtRate, percentile } from './report.js';

const ORDERS = 4000;
const WARMUP = 300;
const SUBSCRIBERS = 50;
const TRADES = 4000;
const BURST = 100;

/** A config without order-count filters or tight limits, so the bench measures the server, not a refusal. */
function benchConfig(): ReturnType<typeof testSandboxConfig> {
  return testSandboxConfig((d) => {
    d.limits = { requestWeight: [{ intervalNum: 1, intervalLetter: 'M', limit: 10_000_000 }], orders: [{ intervalNum: 1, intervalLetter: 'D', limit: 10_000_000 }] };
    for (const s of d.symbols) s.filters = (s.filters ?? []).filter((f) => f.filterType !== 'MAX_NUM_ORDERS');
    d.exchangeFilters = {};
  });
}

async function ordersPerSecond(lines: string[]): Promise<boolean> {
  const sbx = await startSandbox(benchConfig(), { quiet: true });
  const A = TEST_ACCOUNTS.alice;
  const client = new Client(sbx.urls.base_url, { keepAliveTimeout: 60_000, pipelining: 1 });
  let ok = true;
  try {
    const send = async (i: number): Promise<number> => {
      // Bids below the market, spread over 200 ticks, so nothing trades and every answer is NEW.
      const price = 50_000 + (i % 200);
      const body = `symbol=BTC_USDT&side=0&type=1&timeInForce=1&quantity=0.001&price=${price}&clientId=b${i}&timestamp=${Date.now()}`;
      const signature = createHmac('sha256', A.secret).update(body).digest('hex');
      const t0 = process.hrtime.bigint();
      const res = await client.request({ path: '/open/v1/orders', method: 'POST', headers: { 'X-MBX-APIKEY': A.apiKey, 'Content-Type': 'application/x-www-form-urlencoded' }, body: `${body}&signature=${signature}` });
      const json = (await res.body.json()) as { code: number; data?: { status: number; clientId: string } };
      const dt = Number(process.hrtime.bigint() - t0) / 1e6;
      if (res.statusCode !== 200 || json.code !== 0 || json.data?.status !== 0 || json.data.clientId !== `b${i}`) {
        ok = false;
        throw new Error(`order ${i} refused: ${res.statusCode} ${JSON.stringify(json)}`);
      }
      return dt;
    };
    for (let i = 0; i < WARMUP; i++) await send(i);
    const lat: number[] = [];
    const t0 = process.hrtime.bigint();
    for (let i = WARMUP; i < WARMUP + ORDERS; i++) lat.push(await send(i));
    const secs = Number(process.hrtime.bigint() - t0) / 1e9;
    const open = sbx.engine.openOrders('alice', 'BTC_USDT').length;
    if (open !== WARMUP + ORDERS) ok = false;
    const p50 = percentile(lat, 50);
    lines.push(`open API orders over loopback (1 keep-alive client, sequential): ${fmtRate(ORDERS / secs)}  p50 ${p50.toFixed(3)} ms (${fmtRate(1000 / p50)} at the median)  p99 ${percentile(lat, 99).toFixed(3)} ms  (${ORDERS} orders, ${open} resting, all answers checked)`);
  } finally {
    await client.close();
    await sbx.stop();
  }
  return ok;
}

async function fanOut(lines: string[]): Promise<boolean> {
  const sbx = await startSandbox(benchConfig(), { quiet: true });
  const sockets: WebSocket[] = [];
  const received: number[][] = [];
  let ok = true;
  try {
    for (let i = 0; i < SUBSCRIBERS; i++) {
      const ws = new WebSocket(`${sbx.urls.stream_url}/ws/btcusdt@trade`);
      const ids: number[] = [];
      received.push(ids);
      ws.on('message', (d) => ids.push((JSON.parse(d.toString()) as { t: number }).t));
      await new Promise<void>((resolve, reject) => {
        ws.once('open', () => resolve());
        ws.once('error', reject);
      });
      sockets.push(ws);
    }
    const total = SUBSCRIBERS * TRADES;
    const count = (): number => received.reduce((n, r) => n + r.length, 0);
    const price = new Decimal('60000');
    const qty = new Decimal('0.001');
    const t0 = process.hrtime.bigint();
    for (let sent = 0; sent < TRADES; sent += BURST) {
      sbx.state.exec((e, now) => {
        for (let j = 0; j < BURST; j++) e.applyTrade('BTC_USDT', { price, qty, isBuyerMaker: j % 2 === 0 }, now);
      });
      // Let the sockets drain between bursts so the measure is delivery, not buffering.
      await new Promise((r) => setImmediate(r));
    }
    const deadline = Date.now() + 60_000;
    while (count() < total && Date.now() < deadline) await new Promise((r) => setTimeout(r, 1));
    const secs = Number(process.hrtime.bigint() - t0) / 1e9;
    const first = received[0] ?? [];
    for (const r of received) {
      if (r.length !== TRADES || r.some((id, i) => id !== (first[0] ?? 0) + i)) ok = false;
    }
    lines.push(`WebSocket fan-out to ${SUBSCRIBERS} subscribers: ${fmtRate(count() / secs)} events delivered  (${TRADES} trades x ${SUBSCRIBERS}, every subscriber got every trade id in order: ${ok})`);
  } finally {
    for (const ws of sockets) ws.terminate();
    await sbx.stop();
  }
  return ok;
}

/** Runs both measurements. */
export async function run(): Promise<BenchReport> {
  const lines: string[] = [];
  const a = await ordersPerSecond(lines);
  const b = await fanOut(lines);
  lines.push(`peer: none named for this benchmark; absolute numbers only (machine load average ${loadavg()[0]?.toFixed(1)}: latency tails and rates include CPU contention)`);
  return { name: 'sandbox', lines, ok: a && b };
}
