/** The soak's chain clients (scripts/soak.ts): reads and writes on the devnets, receipts polled every 50 ms. */
import {
  createPublicClient,
  createWalletClient,
  erc20Abi,
  type Hex,
  http,
  maxUint256,
  type PublicClient,
} from 'viem';
import type { privateKeyToAccount } from 'viem/accounts';

/** A devnet as the soak reads it from GET /api/public/chains. */
export interface SoakChain {
  name: string;
  chainId: number;
  rpcUrl: string;
}

export function chainClients(chain: SoakChain) {
  const viemChain = {
    id: chain.chainId,
    name: chain.name,
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [chain.rpcUrl] } },
  };
  return {
    // anvil mines on every transaction: poll receipts every 50 ms, not viem's default 4 s.
    public: createPublicClient({
      chain: viemChain,
      transport: http(chain.rpcUrl),
      pollingInterval: 50,
    }) as PublicClient,
    wallet: (account: ReturnType<typeof privateKeyToAccount>) =>
      createWalletClient({ account, chain: viemChain, transport: http(chain.rpcUrl) }),
  };
}

export async function approveMax(
  chain: SoakChain,
  owner: ReturnType<typeof privateKeyToAccount>,
  token: Hex,
  spender: Hex,
) {
  const c = chainClients(chain);
  const hash = await c
    .wallet(owner)
    .writeContract({ address: token, abi: erc20Abi, functionName: 'approve', args: [spender, maxUint256] });
  await c.public.waitForTransactionReceipt({ hash });
}
