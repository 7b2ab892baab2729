/** The user-data-stream routes of the open API: listen keys (create, keep alive, close) and listen tokens. */
import { must, one, type OpenRoute, type OpenRouteDeps } from './open-route-kit.js';
import { ApiCode, badParam, optInt, reqString } from './params.js';

/** POST, PUT and DELETE on both user-data-stream paths, and POST /open/v1/user-listen-token. */
export function streamRoutes(deps: OpenRouteDeps): OpenRoute[] {
  const { streams } = deps;
  // The listen-key endpoints are "unlabelled" in the spec (which would read as NONE), but a key
  // must belong to an account, so they need a valid X-MBX-APIKEY (security API_KEY), as on the
  // exchange family this API comes from. Weight 1 each, as the spec says.
  const listenKeyRoutes = (path: string, kind: 1 | 3): OpenRoute[] => [
    { method: 'POST', path, security: 'API_KEY', style: 'msg', weight: one, handle: ({ account }) => ({ data: streams.createListenKey(must(account).id, kind) }) },
    {
      method: 'PUT',
      path,
      security: 'API_KEY',
      style: 'msg',
      weight: one,
      handle: ({ ctx, account }) => {
        if (!streams.keepAlive(reqString(ctx, 'listenKey', 64), must(account).id)) badParam(ctx, ApiCode.INVALID_LISTEN_KEY, 'This listenKey does not exist.');
        return { bare: {} };
      },
    },
    {
      method: 'DELETE',
      path,
      security: 'API_KEY',
      style: 'msg',
      weight: one,
      handle: ({ ctx, account }) => {
        if (!streams.close(reqString(ctx, 'listenKey', 64), must(account).id)) badParam(ctx, ApiCode.INVALID_LISTEN_KEY, 'This listenKey does not exist.');
        return { bare: {} };
      },
    },
  ];

  return [
    ...listenKeyRoutes('/open/v1/user-data-stream', 1),
    ...listenKeyRoutes('/open/v1/private-n/user-data-stream', 3),
    {
      method: 'POST',
      path: '/open/v1/user-listen-token',
      security: 'SIGNED',
      style: 'msg',
      weight: one,
      handle: ({ ctx, account, now }) => {
        const validity = optInt(ctx, 'validity');
        try {
          return { data: streams.createToken(must(account).id, validity, now) };
        } catch (e) {
          return badParam(ctx, ApiCode.INVALID_PARAMETER, `Invalid value for parameter 'validity': ${e instanceof Error ? e.message : String(e)}.`);
        }
      },
    },
  ];
}
