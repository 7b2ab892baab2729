/**
 * The admin HTTP endpoint (loopback only) over the fault controller and a few operator actions,
 * so tests in other processes (a bot under test, a shell script) can inject faults:
 *
 *   GET  /status                      connections, feeds, accounts' listen keys
 *   POST /faults/maintenance          {"scope": "open" | "legacy" | "all" | null}
 *   POST /faults/delay                {"ms", "scope"?, "pathPrefix"?, "count"?}
 *   POST /faults/blackhole            {"scope"?, "pathPrefix"?, "count"?}
 *   POST /faults/fail-orders          {"when": "before" | "after", "status"?, "count"?, "scope"?}
 *   POST /faults/fail-cancels         {"mode": "apply-then-5xx" | "apply-then-drop" | "5xx-without-apply", "status"?, "count"?, "scope"?}
 *   POST /faults/reject-orders        {"reason"?, "count"?}
 *   POST /faults/processing-status    {"orderId"?, "count"?}
 *   POST /faults/depth-gap            {"symbol", "count"?}
 *   POST /faults/rate-limit           {"status": 429 | 418, "seconds"}
 *   POST /faults/drop-connections     {"id"?}
 *   POST /faults/expire-listen-key    {"listenKey"}
 *   POST /faults/expire-listen-token  {"token"}
 *   POST /faults/reorder-user-events  {"count"?}
 *   POST /faults/crash                {}   the stream server's next tick throws (an internal bug)
 *   POST /faults/clear                {}
 *   POST /reference-price             {"symbol", "price": "<decimal>" | null}
 */
import { z } from 'zod';
import { RejectReason } from '../core/enums.js';
import type { HostHandler, Reply } from './http-host.js';
import { CancelFaultMode, type FaultController } from './faults.js';

/** What the admin endpoint can reach besides the fault controller. */
export interface AdminDeps {
  readonly faults: FaultController;
  status(): unknown;
  setReferencePrice(symbol: string, price: string | null): void;
}

const scope = z.enum(['open', 'legacy', 'all']);
const responseFault = z.object({ scope: scope.optional(), pathPrefix: z.string().optional(), count: z.number().int().positive().optional() });

function strip<T extends Record<string, unknown>>(o: T): { [K in keyof T]: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as { [K in keyof T]: Exclude<T[K], undefined> };
}

/** Builds the admin host's handler. */
export function adminHandler(deps: AdminDeps): HostHandler {
  const f = deps.faults;
  const actions: Record<string, (body: unknown) => unknown> = {
    '/faults/maintenance': (b) => {
      const { scope: s } = z.object({ scope: scope.nullable() }).parse(b);
      f.setMaintenance(s ?? undefined);
      return {};
    },
    '/faults/delay': (b) => {
      const p = responseFault.extend({ ms: z.number().int().min(0) }).parse(b);
      f.delay(p.ms, strip({ scope: p.scope, pathPrefix: p.pathPrefix, count: p.count }));
      return {};
    },
    '/faults/blackhole': (b) => {
      const p = responseFault.parse(b);
      f.blackhole(strip({ scope: p.scope, pathPrefix: p.pathPrefix, count: p.count }));
      return {};
    },
    '/faults/fail-orders': (b) => {
      const p = z.object({ when: z.enum(['before', 'after']), status: z.number().int().min(500).max(599).optional(), count: z.number().int().positive().optional(), scope: scope.optional() }).parse(b);
      f.failOrders(p.when, strip({ status: p.status, count: p.count, scope: p.scope }));
      return {};
    },
    '/faults/fail-cancels': (b) => {
      const p = z.object({ mode: z.enum(Object.values(CancelFaultMode)), status: z.number().int().min(500).max(599).optional(), count: z.number().int().positive().optional(), scope: scope.optional() }).parse(b);
      f.failCancels(p.mode, strip({ status: p.status, count: p.count, scope: p.scope }));
      return {};
    },
    '/faults/reject-orders': (b) => {
      const p = z.object({ reason: z.enum(Object.values(RejectReason)).optional(), count: z.number().int().positive().optional() }).parse(b ?? {});
      f.rejectAcceptedOrders(p.reason, p.count);
      return {};
    },
    '/faults/processing-status': (b) => {
      const p = z.object({ orderId: z.union([z.string(), z.number().int()]).optional(), count: z.number().int().positive().optional() }).parse(b ?? {});
      f.reportProcessing(strip({ orderId: p.orderId === undefined ? undefined : String(p.orderId), count: p.count }));
      return {};
    },
    '/faults/depth-gap': (b) => {
      const p = z.object({ symbol: z.string(), count: z.number().int().positive().optional() }).parse(b);
      f.skipDepthUpdates(p.symbol, p.count);
      return {};
    },
    '/faults/rate-limit': (b) => {
      const p = z.object({ status: z.union([z.literal(429), z.literal(418), z.literal(403)]), seconds: z.number().int().positive() }).parse(b);
      f.forceRateLimit(p.status, p.seconds);
      return {};
    },
    '/faults/drop-connections': (b) => {
      const p = z.object({ id: z.number().int().optional() }).parse(b ?? {});
      return { dropped: f.dropConnections(p.id) };
    },
    '/faults/expire-listen-key': (b) => ({ expired: f.expireListenKey(z.object({ listenKey: z.string() }).parse(b).listenKey) }),
    '/faults/expire-listen-token': (b) => ({ expired: f.expireListenToken(z.object({ token: z.string() }).parse(b).token) }),
    '/faults/reorder-user-events': (b) => {
      f.reorderUserEvents(z.object({ count: z.number().int().min(2).optional() }).parse(b ?? {}).count);
      return {};
    },
    '/faults/crash': () => {
      f.crash();
      return {};
    },
    '/faults/clear': () => {
      f.clear();
      return {};
    },
    '/reference-price': (b) => {
      const p = z.object({ symbol: z.string(), price: z.string().regex(/^\d+(\.\d+)?$/).nullable() }).parse(b);
      deps.setReferencePrice(p.symbol, p.price);
      return {};
    },
  };
  return (ctx): Reply => {
    if (ctx.method === 'GET' && ctx.path === '/status') return { status: 200, body: deps.status() };
    const action = actions[ctx.path];
    if (!action) return { status: 404, body: { ok: false, error: `no such admin action ${ctx.method} ${ctx.path}` } };
    if (ctx.method !== 'POST') return { status: 405, body: { ok: false, error: 'use POST' } };
    let body: unknown = {};
    try {
      body = ctx.rawBody === '' ? {} : JSON.parse(ctx.rawBody);
      return { status: 200, body: { ok: true, ...(action(body) as Record<string, unknown>) } };
    } catch (e) {
      const msg = e instanceof z.ZodError ? e.issues.map((i) => `${i.path.join('.') || '<body>'}: ${i.message}`).join('; ') : e instanceof Error ? e.message : String(e);
      return { status: 400, body: { ok: false, error: msg } };
    }
  };
}
