import { describe, expect, it } from 'vitest';
import { startAnvil } from './anvil-process.ts';

describe('startAnvil', () => {
  it('serves the requested chain on loopback and stops idempotently', async () => {
    const anvil = await startAnvil({ chainId: 920001 });
    expect(anvil.rpcUrl).toBe(`http://127.0.0.1:${anvil.port}`);
    const res = await fetch(anvil.rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }),
    });
    expect(((await res.json()) as { result: string }).result).toBe(`0x${(920001).toString(16)}`);
    await anvil.stop();
    await anvil.stop();
    await expect(fetch(anvil.rpcUrl, { method: 'POST' })).rejects.toThrow();
  });

  it('fails with anvil’s own output when the port is taken', async () => {
    const first = await startAnvil({ chainId: 920002 });
    try {
      await expect(startAnvil({ chainId: 920003, port: first.port })).rejects.toThrow(/failed to start/);
    } finally {
      await first.stop();
    }
  });

  it('fails at once when the binary cannot be started', async () => {
    await expect(startAnvil({ chainId: 920004, binary: '/no-such-dir/anvil' })).rejects.toThrow(
      /failed to start: spawn \/no-such-dir\/anvil ENOENT/,
    );
  });
});
