import WebSocket from 'ws';

/**
 * When this machine first saw each block and each pending transaction of one anvil chain, over its WebSocket
 * (`eth_subscribe` newHeads and newPendingTransactions; anvil serves ws on its HTTP port). The driver's clock, the
 * one every other timestamp of the settlement scenario uses.
 */
export async function watchChain(rpcUrl: string) {
  const url = rpcUrl.replace(/^http/, 'ws');
  const socket = new WebSocket(url);
  const blockSeen = new Map<number, number>();
  const pendingSeen = new Map<string, number>();
  const subscriptions = new Map<string, 'heads' | 'pending'>();
  const requests = new Map<number, 'heads' | 'pending'>();
  socket.on('message', (raw) => {
    const at = Date.now();
    const message = JSON.parse(String(raw)) as {
      id?: number;
      result?: unknown;
      params?: { subscription: string; result: unknown };
    };
    if (message.id !== undefined) {
      const kind = requests.get(message.id);
      if (kind && typeof message.result === 'string') subscriptions.set(message.result, kind);
      return;
    }
    if (!message.params) return;
    const kind = subscriptions.get(message.params.subscription);
    if (kind === 'heads') {
      const number = Number.parseInt((message.params.result as { number: string }).number, 16);
      if (!blockSeen.has(number)) blockSeen.set(number, at);
    } else if (kind === 'pending') {
      const result = message.params.result;
      const hash = (typeof result === 'string' ? result : (result as { hash: string }).hash).toLowerCase();
      if (!pendingSeen.has(hash)) pendingSeen.set(hash, at);
    }
  });
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('error', reject);
  });
  requests.set(1, 'heads');
  requests.set(2, 'pending');
  socket.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_subscribe', params: ['newHeads'] }));
  socket.send(
    JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'eth_subscribe', params: ['newPendingTransactions'] }),
  );
  const deadline = Date.now() + 5000;
  while (subscriptions.size < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
  return {
    blockSeenAt: (block: number) => blockSeen.get(block) ?? null,
    pendingSeenAt: (hash: string) => pendingSeen.get(hash.toLowerCase()) ?? null,
    subscribed: () => [...subscriptions.values()],
    close: () => socket.terminate(),
  };
}

export type ChainWatch = Awaited<ReturnType<typeof watchChain>>;

/** One JSON-RPC call over HTTP (anvil's knobs: evm_setAutomine, evm_setIntervalMining). */
export async function rpc(rpcUrl: string, method: string, params: unknown[] = []): Promise<unknown> {
  const res = await fetch(rpcUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    signal: AbortSignal.timeout(10_000),
  });
  const body = (await res.json()) as { result?: unknown; error?: { message: string } };
  if (body.error) throw new Error(`${method}: ${body.error.message}`);
  return body.result;
}
