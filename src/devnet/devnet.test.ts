import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type Address, createPublicClient, createTestClient, erc20Abi, http } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, describe, expect, it } from 'vitest';
import { createChainRegistry } from '../chains/chain-registry.ts';
import { loadArtifact } from '../chains/contract-artifacts.ts';
import { deployLz, lzChainClient } from '../chains/layerzero/lz-chain-client.ts';
import { checkFerryAppLocked } from '../deploy/ferry-app-lock.ts';
import { deployFerryChain } from '../deploy/ferry-deploy.ts';
import { startAnvil } from './anvil-process.ts';
import {
  ANVIL_KEYS,
  DEVNET_DEPLOYER_KEY,
  DEVNET_FEE_RECIPIENT,
  type Devnets,
  deployDevnetContracts,
  startDevnets,
} from './devnet.ts';
import { DEVNET_DVN_KEYS, DEVNET_LZ_EIDS } from './devnet-layerzero.ts';
import { devnetRegistryFile } from './devnet-registry.ts';

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
  return Promise.all(
    d.chains.map(async (chain) => {
      const client = createPublicClient({ transport: http(chain.rpcUrl) });
      const lz = chain.layerzero;
      const lzContracts = lz ? [lz.endpoint, lz.sendUln302, lz.receiveUln302, lz.executor] : [];
      const code = await Promise.all(
        [...Object.values(chain.contracts), ...lzContracts].map((address) => client.getCode({ address })),
      );
      const balances = await Promise.all(
        chain.tokens.flatMap((token) =>
          [demo, fresh].map((who) =>
            client.readContract({
              address: token.address,
              abi: erc20Abi,
              functionName: 'balanceOf',
              args: [who],
            }),
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

/** What the registry of LayerZero devnets must say, and what the chain must hold for it. */
async function expectWiredAndLocked(d: Devnets) {
  const file = devnetRegistryFile(d);
  const registry = createChainRegistry(file);
  for (const [i, chain] of registry.chains.entries()) {
    expect(file.chains[i]?.messenger).toBe('layerzero');
    expect(file.chains[i]?.contracts.messenger).toBeUndefined();
    const lz = chain.settlement.method === 'layerzero' ? chain.settlement.layerzero : null;
    expect(lz?.eid).toBe(DEVNET_LZ_EIDS[i]);
    expect(lz?.requiredDvns).toHaveLength(DEVNET_DVN_KEYS.length);
    expect(lz?.confirmations).toBe(1);
    // No owner, no delegate, peers and verifier config pinned: nothing left that a key could change.
    expect(await checkFerryAppLocked(chain, registry)).toEqual([]);
  }
}

describe('startDevnets', () => {
  it('starts two chains with LayerZero and Ferry wired and locked, funds demo wallets and survives a restart', async () => {
    const options = { dataDir, ports: [0, 0] as const, demoWallets: [demo, fresh], demoAmount: amount };
    devnets = await startDevnets(options);
    const first = devnets.chains;
    expect(first.map((c) => [c.name, c.chainId, c.confirmations])).toEqual([
      ['devnet-a', 900001, 1],
      ['devnet-b', 900002, 1],
    ]);
    // USDC keeps the address of the deployer's first creation (its proxy); both tokens take permits.
    expect(first[0]?.tokens.map((t) => [t.symbol, t.address, t.decimals, t.contract, t.permit])).toEqual([
      [
        'USDC',
        '0x5FbDB2315678afecb367f032d93F642f64180aa3',
        6,
        'FiatTokenV2_2',
        { name: 'USD Coin', version: '2' },
      ],
      [
        'USDT',
        '0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512',
        6,
        'TestStablecoin',
        { name: 'Devnet Tether USD', version: '1' },
      ],
    ]);
    for (const chain of first) expect(chain.rpcUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    // LayerZero's 18 transactions (its own key), USDC's implementation (two, by its admin), Ferry's two tokens,
    // then the app: log scans start at block 23.
    expect(first.map((c) => c.startBlock)).toEqual([23n, 23n]);
    expect(devnets.relay).not.toBeNull();
    await expectWiredAndLocked(devnets);

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
    expect(devnets.chains.map((c) => [c.contracts, c.tokens, c.layerzero])).toEqual(
      first.map((c) => [c.contracts, c.tokens, c.layerzero]),
    );
    expect(await snapshot(devnets)).toEqual(before);
    // Restored from state, the deployment block is found again rather than reset to 0.
    expect(devnets.chains.map((c) => c.startBlock)).toEqual([23n, 23n]);
    expect(devnets.relay).not.toBeNull();
    await expectWiredAndLocked(devnets);

    // The relay can be stopped and started again, as a test of "the executor is down" does.
    await devnets.relay?.stop();
    const relay = devnets.startRelay();
    expect(devnets.relay).toBe(relay);
    expect(devnets.startRelay()).toBe(relay);
  });

  it('with messenger attester, deploys AttesterMessenger, FerryEscrow and FerryFill and runs no relay', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'ferry-devnet-attester-'));
    const attester = await startDevnets({
      dataDir: dir,
      ports: [0, 0],
      demoWallets: [demo],
      messenger: 'attester',
    });
    try {
      // USDC's implementation in blocks 1 and 2, two tokens in blocks 3 and 4, then the messenger: Ferry's log
      // scans start at block 5.
      expect(attester.chains.map((c) => c.startBlock)).toEqual([5n, 5n]);
      expect(attester.relay).toBeNull();
      expect(() => attester.startRelay()).toThrow('attester devnets have no LayerZero relay');
      const file = devnetRegistryFile(attester);
      for (const chain of file.chains) {
        expect(chain.messenger).toBe('attester');
        expect(chain.layerzero).toBeUndefined();
        expect(chain.contracts.messenger).toMatch(/^0x[0-9a-fA-F]{40}$/);
      }
      const messenger = file.chains[0]?.contracts.messenger as Address;
      const client = createPublicClient({ transport: http(file.chains[0]?.rpcUrl as string) });
      expect(
        await client.readContract({
          address: messenger,
          abi: loadArtifact('AttesterMessenger').abi,
          functionName: 'attester',
        }),
      ).toBe(attester.attester);
    } finally {
      await attester.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('with a block time, deploys at once and then mines on an interval instead of per transaction', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'ferry-devnet-interval-'));
    const interval = await startDevnets({ dataDir: dir, ports: [0, 0], demoWallets: [demo], blockTime: 2 });
    try {
      const chain = interval.chains[0];
      expect(chain?.startBlock).toBe(23n);
      const test = createTestClient({ mode: 'anvil', transport: http(chain?.rpcUrl as string) });
      expect(await test.getAutomine()).toBe(false);
    } finally {
      await interval.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("refuses a state file whose USDC is not Circle's, telling the user to delete it", async () => {
    // What devnets deployed before USDC became Circle's: two TestStablecoins at nonces 0 and 1, then Ferry's.
    const anvil = await startAnvil({ chainId: 900001 });
    try {
      const deployer = lzChainClient(anvil.rpcUrl, anvil.chainId, DEVNET_DEPLOYER_KEY);
      for (const [name, symbol] of [
        ['Devnet USD Coin', 'USDC'],
        ['Devnet Tether USD', 'USDT'],
      ])
        await deployLz(deployer, symbol as string, loadArtifact('TestStablecoin'), [name, symbol]);
      const attesterAddress = privateKeyToAccount(ANVIL_KEYS[1]).address;
      await deployFerryChain({
        rpcUrl: anvil.rpcUrl,
        chainId: anvil.chainId,
        deployerKey: DEVNET_DEPLOYER_KEY,
        settleGrace: 10,
        feeRecipient: DEVNET_FEE_RECIPIENT,
        settlement: { method: 'attester', attester: attesterAddress },
      });
      await expect(
        deployDevnetContracts({ rpcUrl: anvil.rpcUrl, chainId: anvil.chainId, attester: attesterAddress }),
      ).rejects.toThrow(
        "devnet USDC 0x5FbDB2315678afecb367f032d93F642f64180aa3 is not Circle's FiatTokenV2_2; delete the devnet state file",
      );
    } finally {
      await anvil.stop();
    }
  });
});
