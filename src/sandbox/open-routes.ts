/**
 * Routes of the open API on the main host ({base_url}): /open/v1 common, order, account,
 * wallet and listen-key endpoints, and /v1/common/system-config. Handlers return the `data`
 * of the envelope; the host wraps it (see open-host.ts). Each group lives in its own file.
 */
import { accountRoutes } from './open-account-routes.js';
import { orderRoutes } from './open-order-routes.js';
import { one, type OpenRoute, type OpenRouteDeps } from './open-route-kit.js';
import { streamRoutes } from './open-stream-routes.js';
import { walletRoutes } from './open-wallet-routes.js';
import { wireSymbol } from './open-wire.js';

export type { OpenRoute, OpenRouteDeps, RouteInput, RouteResult } from './open-route-kit.js';

/** GET /open/v1/common/time, GET /open/v1/common/symbols, GET /v1/common/system-config. */
function commonRoutes(deps: OpenRouteDeps): OpenRoute[] {
  const { state } = deps;
  return [
    { method: 'GET', path: '/open/v1/common/time', security: 'NONE', style: 'msg', weight: one, handle: () => ({ data: undefined }) },
    {
      method: 'GET',
      path: '/open/v1/common/symbols',
      security: 'NONE',
      style: 'msg',
      weight: one,
      handle: () => ({ data: { list: [...state.symbols.values()].map((s) => wireSymbol(s.info, s.wireFilters)) } }),
    },
    {
      // The spec names the fields only by suffix (a vendor word comes first); ours is "sandbox".
      method: 'GET',
      path: '/v1/common/system-config',
      security: 'NONE',
      style: 'msg',
      weight: one,
      handle: () => ({ data: { sandboxWssApiBaseUrl: deps.wsApiUrl(), sandboxWssApiBaseUrlList: [deps.wsApiUrl()] } }),
    },
  ];
}

/** Builds the main-host route table. */
export function openRoutes(deps: OpenRouteDeps): OpenRoute[] {
  return [...commonRoutes(deps), ...orderRoutes(deps), ...accountRoutes(deps), ...walletRoutes(deps), ...streamRoutes(deps)];
}
