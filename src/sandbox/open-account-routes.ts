/** The account routes of the open API: spot balances, one asset's balance, and the account's trades. */
import type { TradeQuery } from '../sim/index.js';
import type { SandboxSymbol } from './config.js';
import type { RequestContext } from './http-host.js';
import { must, one, symbolOf, type OpenRoute, type OpenRouteDeps } from './open-route-kit.js';
import { wireAccountTrade } from './open-wire.js';
import { optDirect, optInt, optString, optTimeRange, reqString } from './params.js';

/** GET /open/v1/account/spot, GET /open/v1/account/spot/asset, GET /open/v1/orders/trades. */
export function accountRoutes(deps: OpenRouteDeps): OpenRoute[] {
  const { state } = deps;
  const sym = (ctx: RequestContext): SandboxSymbol => symbolOf(state, ctx);
  return [
    {
      method: 'GET',
      path: '/open/v1/account/spot',
      security: 'SIGNED',
      style: 'msg',
      weight: () => 5,
      handle: ({ account }) => {
        const a = must(account);
        return {
          data: {
            makerCommission: a.makerCommission.toFixed(),
            takerCommission: a.takerCommission.toFixed(),
            buyerCommission: '0',
            sellerCommission: '0',
            canTrade: a.canTrade ? 1 : 0,
            canWithdraw: a.canWithdraw ? 1 : 0,
            canDeposit: a.canDeposit ? 1 : 0,
            accountAssets: state.engine.balances(a.id).map((b) => ({ asset: b.asset, free: b.free.toFixed(), locked: b.locked.toFixed() })),
          },
        };
      },
    },
    {
      method: 'GET',
      path: '/open/v1/account/spot/asset',
      security: 'SIGNED',
      style: 'msg',
      weight: one,
      handle: ({ ctx, account }) => {
        const asset = reqString(ctx, 'asset');
        const b = state.engine.balances(must(account).id).find((x) => x.asset === asset);
        return { data: { asset, free: b ? b.free.toFixed() : '0', locked: b ? b.locked.toFixed() : '0' } };
      },
    },
    {
      method: 'GET',
      path: '/open/v1/orders/trades',
      security: 'SIGNED',
      style: 'msg',
      weight: () => 5,
      handle: ({ ctx, account }) => {
        const s = sym(ctx);
        const q: { -readonly [K in keyof TradeQuery]: TradeQuery[K] } = {};
        const orderId = optString(ctx, 'orderId', 20);
        if (orderId !== undefined) q.orderId = orderId;
        optTimeRange(ctx, q);
        const fromId = optInt(ctx, 'fromId', 0);
        if (fromId !== undefined) q.fromId = fromId;
        const direct = optDirect(ctx, fromId !== undefined);
        if (direct) q.direct = direct;
        q.limit = optInt(ctx, 'limit', 1, 1000) ?? 500;
        optInt(ctx, 'rebateStatus');
        return { data: { list: state.engine.accountTrades(must(account).id, s.info.symbol, q).map(wireAccountTrade) } };
      },
    },
  ];
}
