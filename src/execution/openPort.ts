/** The open API client as the router's port (the client already has the right shape; this checks it). */
import type { OpenClient } from '../exchange/open/OpenClient.js';
import type { OpenOrderPort } from './ports.js';

/** Returns the client typed as the router's port; a compile error here means the two drifted apart. */
export function openPort(client: OpenClient): OpenOrderPort {
  return client;
}
