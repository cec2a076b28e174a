import { createTestClient, http } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AnvilInstance, startAnvil } from '../devnet/anvil-process.ts';
import type { Clock } from '../domain/clock.ts';
import { createChainClock } from './chain-clock.ts';
import { createChainRegistry } from './chain-registry.ts';

const ADDRESS = '0x0000000000000000000000000000000000000001';

function registryOf(chains: { name: string; rpcUrl: string }[]) {
  return createChainRegistry({
    chains: chains.map((c, i) => ({
      ...c,
      chainId: 930001 + i,
      contracts: { escrow: ADDRESS, fill: ADDRESS },
      tokens: [],
    })),
  });
}

describe('chain clock', () => {
  let anvil: AnvilInstance;
  const warnings: string[] = [];
  const log = { warn: (_obj: object, msg: string) => warnings.push(msg) };
  let serverMs = Date.now();
  const clock: Clock = { now: () => new Date(serverMs) };

  beforeAll(async () => {
    anvil = await startAnvil({ chainId: 930001 });
  });
  afterAll(async () => {
    await anvil?.stop();
  });

  it("follows a chain whose clock runs ahead, and keeps the server's clock as the floor", async () => {
    const registry = registryOf([{ name: 'ahead', rpcUrl: anvil.rpcUrl }]);
    const chainClock = createChainClock({ registry, clock, refreshMs: 60_000, log });
    const serverSeconds = () => Math.floor(serverMs / 1000);
    await chainClock.start();
    try {
      expect(chainClock.now('ahead')).toBeGreaterThanOrEqual(serverSeconds());
      expect(chainClock.now('ahead')).toBeLessThan(serverSeconds() + 30);

      const test = createTestClient({ mode: 'anvil', transport: http(anvil.rpcUrl) });
      await test.increaseTime({ seconds: 3600 });
      await test.mine({ blocks: 1 });
      // Answers come from the last reading until the next refresh: no RPC call per question.
      expect(chainClock.now('ahead')).toBeLessThan(serverSeconds() + 30);
      await chainClock.refresh();
      expect(chainClock.now('ahead')).toBeGreaterThanOrEqual(serverSeconds() + 3600);

      // A server clock moved past the chain's wins (the chain's latest block may simply be old).
      serverMs += 5 * 3600 * 1000;
      expect(chainClock.now('ahead')).toBe(serverSeconds());
    } finally {
      chainClock.stop();
    }
  });

  it("an unreachable or unknown chain answers with the server's clock and is logged once", async () => {
    const registry = registryOf([{ name: 'down', rpcUrl: 'http://127.0.0.1:1' }]);
    const chainClock = createChainClock({ registry, clock, refreshMs: 60_000, log });
    await chainClock.start();
    await chainClock.refresh();
    chainClock.stop();
    const serverSeconds = Math.floor(serverMs / 1000);
    expect(chainClock.now('down')).toBe(serverSeconds);
    expect(chainClock.now('nowhere')).toBe(serverSeconds);
    expect(warnings.filter((w) => w.startsWith('chain clock: latest block unreadable'))).toHaveLength(1);
    expect(warnings.join('\n')).not.toContain('127.0.0.1:1');
  });
});
