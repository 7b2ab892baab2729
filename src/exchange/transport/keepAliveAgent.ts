/**
 * The keep-alive connection pool of one origin: Node's own http(s).Agent, which hands a free
 * socket to a request and writes it in the same turn of the event loop (undici 7 first waits a
 * turn to check an idle socket, and an order waited for whatever else that turn held).
 * The check undici made is kept here without the wait: a free socket that receives any byte or
 * the server's FIN while idle is destroyed at once, so it never carries the next request (Node
 * itself would drop stray bytes and reuse the socket, and a FIN leaves a moment in which the
 * closing socket is still free). Idle sockets close after the keep-alive timeout (the Agent's
 * socket timeout, shortened by the server's Keep-Alive hint).
 */
import http from 'node:http';
import https from 'node:https';
import type { Duplex } from 'node:stream';

/** Pool settings of one origin. */
export interface KeepAliveAgentOptions {
  readonly connections: number;
  readonly keepAliveTimeoutMs: number;
}

/** Destroys a free socket that heard from the server while idle (stray bytes or a FIN). */
function dropIdleSocket(this: Duplex): void {
  this.destroy();
}

/** A keep-alive agent for `protocol` ('http:' or 'https:') whose idle sockets carry nothing stale. */
export function keepAliveAgent(protocol: string, o: KeepAliveAgentOptions): http.Agent {
  const settings = { keepAlive: true, maxSockets: o.connections, maxFreeSockets: o.connections, timeout: o.keepAliveTimeoutMs, scheduling: 'lifo' as const };
  const agent = protocol === 'https:' ? new https.Agent(settings) : new http.Agent(settings);
  // @types/node declares keepSocketAlive as void; Node's Agent returns whether it kept the socket.
  const keep = agent.keepSocketAlive.bind(agent) as (socket: Duplex) => boolean;
  const reuse = agent.reuseSocket.bind(agent);
  // Both are the Agent's documented hooks for subclasses: keepSocketAlive runs as a socket is
  // made free, reuseSocket as a free socket is handed to the next request.
  agent.keepSocketAlive = (socket: Duplex): boolean => {
    const kept = keep(socket);
    if (kept) {
      socket.on('data', dropIdleSocket);
      socket.on('end', dropIdleSocket);
    }
    return kept;
  };
  agent.reuseSocket = (socket: Duplex, req: http.ClientRequest): void => {
    socket.removeListener('data', dropIdleSocket);
    socket.removeListener('end', dropIdleSocket);
    reuse(socket, req);
  };
  return agent;
}
