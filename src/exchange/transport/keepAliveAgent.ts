/**
 * The keep-alive connection pool of one origin: Node's own http(s).Agent, which hands a free
 * socket to a request and writes it in the same turn of the event loop (undici 7 first waits a
 * turn to check an idle socket, and an order waited for whatever else that turn held).
 * The check undici made is kept here without the wait: a free socket that receives any byte or
 * the server's FIN while idle is destroyed at once, so it never carries the next request (Node
 * itself would drop stray bytes and reuse the socket, and a FIN leaves a moment in which the
 * closing socket is still free). Idle sockets close after the keep-alive timeout (the Agent's
 * socket timeout, shortened by the server's Keep-Alive hint).
 *
 * A request that finds a free socket takes it without Agent.addRequest's per-request work (a
 * copy of the request's options merged with the agent's, ~2.6 KB of dictionary objects, and the
 * pool's name worked out from it): the agent serves one origin, so its free sockets sit under one
 * name. What Node does to hand the socket over is kept (reuseSocket, onSocket, the sockets list)
 * except that the reused handle keeps its async_hooks id (nothing here uses async_hooks); a
 * request without a free socket goes through Node's path (a new socket, or the queue).
 */
import http from 'node:http';
import https from 'node:https';
import type { Socket } from 'node:net';
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

/** The Agent's pools by name, as Node keeps them (documented, read-only in the types). */
type Pools = Record<string, Duplex[] | undefined>;

/** What addRequest hands a request over to; not in the types, the hook agents replace to route requests. */
type AddRequest = (req: http.ClientRequest, options: unknown) => void;

/** Takes the most recently freed live socket of the agent's one origin, as Node's 'lifo' does. */
function takeFreeSocket(agent: http.Agent): { socket: Duplex; name: string } | undefined {
  const pools = agent.freeSockets as Pools;
  for (const name in pools) {
    const free = pools[name] as Duplex[];
    let socket = free.pop();
    while (socket !== undefined && socket.destroyed) socket = free.pop();
    if (free.length === 0) delete pools[name];
    return socket === undefined ? undefined : { socket, name };
  }
  return undefined;
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
  const withAgent = agent as http.Agent & { addRequest: AddRequest };
  const add = withAgent.addRequest.bind(agent);
  withAgent.addRequest = (req: http.ClientRequest, options: unknown): void => {
    const free = takeFreeSocket(agent);
    if (free === undefined) {
      add(req, options);
      return;
    }
    agent.reuseSocket(free.socket as Socket, req);
    req.onSocket(free.socket as Socket);
    // As Node's setRequestSocket: a request's own timeout, when it has one, replaces the agent's.
    const timeout = (req as { timeout?: number }).timeout;
    if (timeout !== undefined && timeout !== settings.timeout) (free.socket as Socket).setTimeout(timeout);
    const busy = agent.sockets as Pools;
    (busy[free.name] ??= []).push(free.socket);
  };
  return agent;
}
