import WebSocket from 'ws';
import type { ChainRegistry } from './chain-registry.ts';

/** The pino-compatible subset the watcher logs through. */
interface WatchLog {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  debug(obj: object, msg: string): void;
}

export interface BlockWatcher {
  /** Opens one newHeads subscription per chain with a `wsUrl`; chains without one are not watched. */
  start(): void;
  stop(): Promise<void>;
  /** The chains being watched (those with a `wsUrl`). */
  readonly chains: readonly string[];
}

const FIRST_RETRY_MS = 1_000;
const MAX_RETRY_MS = 30_000;

/**
 * Tells `onBlock(chain)` whenever a registry chain announces a new block: an `eth_subscribe("newHeads")` over the
 * chain's `wsUrl`. The node pushes each block once, so an idle chain (a devnet that mines only on a transaction)
 * costs nothing, and a block is heard as soon as the node has it, whatever the chain's block time (which may
 * change at run time). A dropped socket is reopened with backoff, and each (re)subscription reports a block too:
 * blocks mined while it was down are not replayed.
 */
export function createBlockWatcher(options: {
  registry: ChainRegistry;
  onBlock: (chain: string) => void;
  log: WatchLog;
}): BlockWatcher {
  const { registry, onBlock, log } = options;
  const watched = registry.chains.filter((c) => c.wsUrl !== null);
  const sockets = new Map<string, WebSocket>();
  const retries = new Map<string, NodeJS.Timeout>();
  /** Chains whose watch is down (never up, or lost): logged once when it goes down, once when it is back. */
  const down = new Set<string>();
  let stopped = true;

  function connect(name: string, url: string, retryMs: number): void {
    if (stopped) return;
    const socket = new WebSocket(url);
    sockets.set(name, socket);
    let subscribed = false;
    socket.on('open', () => {
      socket.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_subscribe', params: ['newHeads'] }));
    });
    socket.on('message', (raw) => {
      let message: { id?: number; method?: string; result?: unknown; error?: { message?: string } };
      try {
        message = JSON.parse(raw.toString());
      } catch {
        return;
      }
      if (message.method === 'eth_subscription') {
        onBlock(name);
        return;
      }
      if (message.id !== 1) return;
      if (message.error) {
        log.debug({ chain: name, err: message.error.message }, 'newHeads subscription refused');
        socket.close();
        return;
      }
      subscribed = true;
      if (down.delete(name)) log.info({ chain: name }, 'watching new blocks again');
      onBlock(name);
    });
    // 'close' follows every 'error'; the retry is scheduled there.
    socket.on('error', (error) => {
      log.debug({ chain: name, err: error.message }, 'block watch socket error');
    });
    socket.on('close', () => {
      if (sockets.get(name) === socket) sockets.delete(name);
      if (stopped) return;
      // Once per outage (the URL is not logged: it may carry a key); the attempts that follow are not.
      if (!down.has(name)) {
        down.add(name);
        log.warn(
          { chain: name },
          subscribed
            ? 'block watch lost; reconnecting (the worker polls meanwhile)'
            : "no newHeads subscription at the chain's wsUrl; retrying (the worker polls meanwhile)",
        );
      }
      const delay = subscribed ? FIRST_RETRY_MS : retryMs;
      retries.set(
        name,
        setTimeout(() => {
          retries.delete(name);
          connect(name, url, Math.min(MAX_RETRY_MS, delay * 2));
        }, delay),
      );
    });
  }

  return {
    chains: watched.map((c) => c.name),
    start() {
      if (!stopped) return;
      stopped = false;
      for (const chain of watched) connect(chain.name, chain.wsUrl as string, FIRST_RETRY_MS);
    },
    async stop() {
      stopped = true;
      for (const timer of retries.values()) clearTimeout(timer);
      retries.clear();
      const closing = [...sockets.values()].map(
        (socket) =>
          new Promise<void>((resolve) => {
            if (socket.readyState === WebSocket.CLOSED) return resolve();
            socket.once('close', () => resolve());
            // A socket still connecting cannot be closed cleanly.
            socket.terminate();
          }),
      );
      sockets.clear();
      await Promise.all(closing);
    },
  };
}
