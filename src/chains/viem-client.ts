import {
  createPublicClient,
  HttpRequestError,
  http,
  type PublicClient,
  TimeoutError,
  type Transport,
} from 'viem';
import type { FerryMetrics } from '../metrics/ferry-metrics.ts';
import { chainById } from './chain-by-id.ts';
import { type ChainRegistry, registryChain } from './chain-registry.ts';

/** Where failed RPC calls are counted (ferry_rpc_errors_total). */
export type RpcErrorCounter = FerryMetrics['rpcErrors'];

/**
 * Every RPC call of Ferry's clients passes here, so every failure is counted once, after the transport's own
 * retry: `transport` when the node could not be reached (connection, timeout, HTTP error), `response` when it
 * answered with a JSON-RPC error (a revert in a simulation or gas estimate, a refused transaction).
 */
function counted(transport: Transport, chain: string, errors: RpcErrorCounter): Transport {
  return (params) => {
    const inner = transport(params);
    const request: typeof inner.request = async (args, options) => {
      try {
        return await inner.request(args, options);
      } catch (error) {
        const unreachable = error instanceof HttpRequestError || error instanceof TimeoutError;
        errors.inc({ chain, kind: unreachable ? 'transport' : 'response' });
        throw error;
      }
    };
    return { ...inner, request };
  };
}

/** A viem public client for a registry chain, by name. Callers cache it: one per chain per component. */
export function publicClientFor(
  registry: ChainRegistry,
  name: string,
  timeoutMs: number,
  rpcErrors?: RpcErrorCounter,
): PublicClient {
  const chain = registryChain(registry, name);
  const viemChain = chainById(chain.chainId, chain.rpcUrl, chain.name);
  const transport = http(chain.rpcUrl, { timeout: timeoutMs, retryCount: 1 });
  return createPublicClient({
    chain: viemChain,
    transport: rpcErrors ? counted(transport, name, rpcErrors) : transport,
  });
}

/**
 * A viem public client for an RPC URL not (yet) in a registry: `ferry deploy` asks the node its chain id before it
 * knows which chain it is deploying to, and reads back a locked app through the same kind of client.
 */
export function publicClientForUrl(rpcUrl: string, timeoutMs: number): PublicClient {
  return createPublicClient({ transport: http(rpcUrl, { timeout: timeoutMs, retryCount: 1 }) });
}

/**
 * One public client per registry chain, made on first use: each component keeps its own set (its own timeout),
 * and every call of the returned function for a chain answers the same client.
 */
export function publicClientsFor(
  registry: ChainRegistry,
  timeoutMs: number,
  rpcErrors?: RpcErrorCounter,
): (name: string) => PublicClient {
  const clients = new Map<string, PublicClient>();
  return (name) => {
    let client = clients.get(name);
    if (!client) {
      client = publicClientFor(registry, name, timeoutMs, rpcErrors);
      clients.set(name, client);
    }
    return client;
  };
}
