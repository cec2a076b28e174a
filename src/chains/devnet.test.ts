import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type Address, createPublicClient, createTestClient, http } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, describe, expect, it } from 'vitest';
import { loadArtifact } from './contract-artifacts.ts';
import { ANVIL_KEYS, type Devnets, startDevnets } from './devnet.ts';

const dataDir = mkdtempSync(path.join(tmpdir(), 'ferry-devnet-'));
const demo = privateKeyToAccount(ANVIL_KEYS[2]).address;
const fresh: Address = '0x00000000000000000000000000000000000d3e70';
const amount = 5_000n * 10n ** 6n;
let devnets: Devnets | undefined;

afterAll(async () => {
  await devnets?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

async function snapshot(d: Devnets) {
  const { abi } = loadArtifact('TestStablecoin');
  return Promise.all(
    d.chains.map(async (chain) => {
      const client = createPublicClient({ transport: http(chain.rpcUrl) });
      const code = await Promise.all(
        Object.values(chain.contracts).map((address) => client.getCode({ address })),
      );
      const balances = await Promise.all(
        chain.tokens.flatMap((token) =>
          [demo, fresh].map((who) =>
            client.readContract({ address: token.address, abi, functionName: 'balanceOf', args: [who] }),
          ),
        ),
      );
      return {
        chainId: await client.getChainId(),
        code,
        balances,
        ethOfFresh: await client.getBalance({ address: fresh }),
      };
    }),
  );
}

describe('startDevnets', () => {
  it('starts two chains with Ferry deployed, funds demo wallets and survives a restart', async () => {
    const options = { dataDir, ports: [0, 0] as const, demoWallets: [demo, fresh], demoAmount: amount };
    devnets = await startDevnets(options);
    const first = devnets.chains;
    expect(first.map((c) => [c.name, c.chainId, c.confirmations])).toEqual([
      ['devnet-a', 900001, 1],
      ['devnet-b', 900002, 1],
    ]);
    expect(first[0]?.tokens.map((t) => [t.symbol, t.decimals])).toEqual([
      ['USDC', 6],
      ['USDT', 6],
    ]);
    for (const chain of first) expect(chain.rpcUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    // Two tokens in blocks 1 and 2, then the messenger: Ferry's log scans start at block 3.
    expect(first.map((c) => c.startBlock)).toEqual([3n, 3n]);

    const before = await snapshot(devnets);
    for (const chain of before) {
      expect(chain.code.every((code) => code !== undefined && code.length > 2)).toBe(true);
      expect(chain.balances).toEqual([amount, amount, amount, amount]);
      expect(chain.ethOfFresh).toBeGreaterThan(0n);
    }
    expect(before.map((c) => c.chainId)).toEqual([900001, 900002]);

    // Mine a marker into devnet-a so the restart provably restored state rather than redeploying afresh.
    const rpcA = first[0]?.rpcUrl as string;
    await createTestClient({ mode: 'anvil', transport: http(rpcA) }).mine({ blocks: 100 });
    const height = await createPublicClient({ transport: http(rpcA) }).getBlockNumber();

    // Restart from the state files: same contracts, no second deployment, no double mint.
    await devnets.stop();
    devnets = await startDevnets(options);
    const restartedA = createPublicClient({ transport: http(devnets.chains[0]?.rpcUrl as string) });
    expect(await restartedA.getBlockNumber()).toBe(height);
    expect(devnets.chains.map((c) => [c.contracts, c.tokens])).toEqual(
      first.map((c) => [c.contracts, c.tokens]),
    );
    expect(await snapshot(devnets)).toEqual(before);
    // Restored from state, the deployment block is found again rather than reset to 0.
    expect(devnets.chains.map((c) => c.startBlock)).toEqual([3n, 3n]);
  });

  it('with a block time, deploys at once and then mines on an interval instead of per transaction', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'ferry-devnet-interval-'));
    const interval = await startDevnets({ dataDir: dir, ports: [0, 0], demoWallets: [demo], blockTime: 2 });
    try {
      const chain = interval.chains[0];
      expect(chain?.startBlock).toBe(3n);
      const test = createTestClient({ mode: 'anvil', transport: http(chain?.rpcUrl as string) });
      expect(await test.getAutomine()).toBe(false);
    } finally {
      await interval.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
