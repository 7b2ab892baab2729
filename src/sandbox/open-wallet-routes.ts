/** The wallet routes of the open API: withdraw, withdraw and deposit history, deposit address. */
import { randomUUID } from 'node:crypto';
import { depositAddress } from './exchange-state.js';
import type { RequestContext } from './http-host.js';
import { must, one, type OpenRoute, type OpenRouteDeps } from './open-route-kit.js';
import { wireDeposit, wireWithdraw } from './open-wire.js';
import { ApiCode, badParam, optDecimal, optInt, optString, reqString } from './params.js';

/** The shared filters of withdraw and deposit history: account, asset, status, fromId, time range. */
function walletFilter(ctx: RequestContext, accountId: string, maxStatus: number): (r: { accountId: string; asset: string; status: number; id: number }, time: number) => boolean {
  const asset = optString(ctx, 'asset');
  const status = optInt(ctx, 'status', 0, maxStatus);
  const fromId = optInt(ctx, 'fromId', 0);
  const startTime = optInt(ctx, 'startTime', 0);
  const endTime = optInt(ctx, 'endTime', 0);
  return (r, time) =>
    r.accountId === accountId &&
    (asset === undefined || r.asset === asset) &&
    (status === undefined || r.status === status) &&
    (fromId === undefined || r.id >= fromId) &&
    (startTime === undefined || time >= startTime) &&
    (endTime === undefined || time <= endTime);
}

/** POST and GET /open/v1/withdraws, GET /open/v1/deposits, GET /open/v1/deposits/address. */
export function walletRoutes(deps: OpenRouteDeps): OpenRoute[] {
  const { state } = deps;
  return [
    {
      method: 'POST',
      path: '/open/v1/withdraws',
      security: 'SIGNED',
      style: 'msg',
      weight: one,
      handle: ({ ctx, account }) => {
        const a = must(account);
        const asset = reqString(ctx, 'asset');
        const clientId = optString(ctx, 'clientId') ?? randomUUID().replace(/-/g, '');
        const network = optString(ctx, 'network') ?? asset;
        const address = reqString(ctx, 'address', 128);
        const addressTag = optString(ctx, 'addressTag', 64) ?? '';
        if (!ctx.params.get('amount')) badParam(ctx, ApiCode.MANDATORY_PARAM, "Mandatory parameter 'amount' was not sent, was empty/null, or malformed.");
        const amount = optDecimal(ctx, 'amount') as NonNullable<ReturnType<typeof optDecimal>>;
        if (!a.canWithdraw) badParam(ctx, ApiCode.REJECTED_API_KEY, 'Withdrawals are disabled for this account.');
        const rec = state.withdraw(a.id, { asset, network, address, addressTag, amount, clientId });
        if (typeof rec === 'string') badParam(ctx, ApiCode.INVALID_PARAMETER, `Withdrawal refused: ${rec}`);
        return { data: { withdrawId: String(rec.id) } };
      },
    },
    {
      method: 'GET',
      path: '/open/v1/withdraws',
      security: 'SIGNED',
      style: 'msg',
      weight: one,
      handle: ({ ctx, account }) => {
        const keep = walletFilter(ctx, must(account).id, 99);
        const list = state.withdraws.filter((w) => keep(w, w.createTime));
        return { data: { list: list.map(wireWithdraw) } };
      },
    },
    {
      method: 'GET',
      path: '/open/v1/deposits',
      security: 'SIGNED',
      style: 'msg',
      weight: one,
      handle: ({ ctx, account }) => {
        const keep = walletFilter(ctx, must(account).id, 1);
        const list = state.deposits.filter((d) => keep(d, d.insertTime));
        return { data: { list: list.map(wireDeposit) } };
      },
    },
    {
      method: 'GET',
      path: '/open/v1/deposits/address',
      security: 'SIGNED',
      style: 'msg',
      weight: one,
      handle: ({ ctx, account }) => {
        const asset = reqString(ctx, 'asset');
        const network = reqString(ctx, 'network');
        return { data: { address: depositAddress(must(account).id, asset, network), addressTag: '', asset } };
      },
    },
  ];
}
