import type { Address } from 'viem';
import { getAddress } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { balanceOf, chainClients } from '../chains/settlement/lp-chain-clients.ts';
import { loadConfig } from '../config/config.ts';
import { ANVIL_KEYS } from '../devnet/devnet.ts';
import { systemClock } from '../domain/clock.ts';
import { createAccountService } from '../services/account-service.ts';
import { createDatabase } from '../store/engine/database.ts';
import { migrateToLatest } from '../store/engine/migrator.ts';
import { checkAborted, DemoError, type DemoRun, ok } from './demo-run.ts';
import { createDemoAccounts, type DemoChain, type DemoChains, type DemoToken } from './demo-setup.ts';

interface PublicChain {
  name: string;
  chainId: number;
  escrow: Address;
  rpcUrl?: string;
  tokens: { symbol: string; address: Address; decimals: number }[];
}

/**
 * The chains of an already running Ferry, from its public chain list: the first two that publish their RPC URL and
 * list USDC. Only a Ferry on its own devnets does both, and only there do the demo's wallets (anvil's public keys)
 * hold tokens, which is checked before anything is sent.
 */
export async function connectDemoApi(run: DemoRun, api: string): Promise<DemoChains> {
  run.step = 'API';
  let chains: PublicChain[];
  try {
    const res = await fetch(new URL('/api/public/chains', api), { signal: AbortSignal.timeout(10_000) });
    if (!res.ok) throw new DemoError(`GET /api/public/chains answered ${res.status}`);
    chains = ((await res.json()) as { data: { chains: PublicChain[] } }).data.chains;
  } catch (error) {
    throw new DemoError(`cannot reach Ferry at ${api}: ${(error as Error).message}`, { cause: error });
  }
  const usable = chains.filter((c) => c.rpcUrl && c.tokens.some((t) => t.symbol === 'USDC'));
  const [a, b] = usable;
  if (!a || !b) {
    throw new DemoError(
      `Ferry at ${api} does not publish two chains with their RPC URL and USDC: --api needs a Ferry running its own devnets (npm start)`,
    );
  }
  const pick = (c: PublicChain): [DemoChain, DemoToken] => {
    const usdc = c.tokens.find((t) => t.symbol === 'USDC') as PublicChain['tokens'][number];
    return [
      { name: c.name, chainId: c.chainId, rpcUrl: c.rpcUrl as string, escrow: getAddress(c.escrow) },
      { address: getAddress(usdc.address), decimals: usdc.decimals },
    ];
  };
  const [chainA, usdcA] = pick(a);
  const [chainB, usdcB] = pick(b);
  const offerer = privateKeyToAccount(ANVIL_KEYS[2]);
  const held = await balanceOf(chainClients(chainA, offerer), usdcA.address, offerer.address).catch(
    (error: unknown) => {
      throw new DemoError(`cannot read ${chainA.name} at its RPC URL: ${(error as Error).message}`, {
        cause: error,
      });
    },
  );
  if (held < run.options.inputAmount) {
    throw new DemoError(
      `the demo's offerer ${offerer.address} holds ${held} USDC base units on ${chainA.name}, less than the swap: --api needs a Ferry running its own devnets (npm start)`,
    );
  }
  ok(run, 'API', `${api} (${chainA.name} -> ${chainB.name})`);
  checkAborted(run);
  return { chainA, chainB, usdcA, usdcB };
}

/**
 * The demo's accounts, created in the running Ferry's database the way `ferry accounts create` does: the same
 * settings (DATABASE_URL, DATA_DIR) locate it, so run the demo from where Ferry was started.
 */
export async function createRemoteDemoAccounts(run: DemoRun): Promise<{ mmKey: string; lpKey: string }> {
  run.step = 'accounts';
  const database = createDatabase(loadConfig());
  try {
    await migrateToLatest(database);
    return await createDemoAccounts(run, {
      accounts: createAccountService({ database, clock: systemClock }),
    });
  } finally {
    await database.destroy();
  }
}
