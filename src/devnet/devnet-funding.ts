import {
  type Address,
  type Chain,
  createTestClient,
  http,
  type PublicClient,
  parseEther,
  type Transport,
  type WalletClient,
} from 'viem';
import type { PrivateKeyAccount } from 'viem/accounts';
import { ChainError } from '../chains/chain-error.ts';
import type { ChainLogger } from '../chains/chain-logger.ts';
import type { DevnetTokenContract } from './devnet-options.ts';
import { devnetTokenAbi } from './devnet-tokens.ts';

/** Demo wallets with no ETH at all get this much so they can pay for gas. */
const DEMO_WALLET_ETH = parseEther('100');

/**
 * Tops every wallet up to at least `amount` of every token (minting the difference) and gives it ETH if it has none.
 * The deployer mints: TestStablecoin's owner, and Circle's USDC's minter (configured with an unlimited allowance).
 */
export async function topUpDevnetWallets(
  mints: readonly { to: Address; amount: bigint }[],
  tokens: readonly { symbol: string; address: Address; contract: DevnetTokenContract }[],
  ctx: {
    publicClient: PublicClient<Transport, Chain>;
    wallet: WalletClient<Transport, Chain, PrivateKeyAccount>;
    chainId: number;
    log?: ChainLogger;
  },
) {
  const { publicClient, wallet } = ctx;
  const testClient = createTestClient({
    mode: 'anvil',
    chain: wallet.chain,
    transport: http(wallet.chain.rpcUrls.default.http[0]),
  });
  for (const { to, amount } of mints) {
    if ((await publicClient.getBalance({ address: to })) === 0n) {
      await testClient.setBalance({ address: to, value: DEMO_WALLET_ETH });
    }
    for (const token of tokens) {
      const abi = devnetTokenAbi(token.contract);
      const balance = (await publicClient.readContract({
        address: token.address,
        abi,
        functionName: 'balanceOf',
        args: [to],
      })) as bigint;
      if (balance >= amount) continue;
      const hash = await wallet.writeContract({
        address: token.address,
        abi,
        functionName: 'mint',
        args: [to, amount - balance],
      });
      const receipt = await publicClient.waitForTransactionReceipt({ hash });
      if (receipt.status !== 'success')
        throw new ChainError(`minting ${token.symbol} to ${to} failed (tx ${hash})`);
      ctx.log?.info(
        { chainId: ctx.chainId, token: token.symbol, to, amount: String(amount - balance) },
        'minted',
      );
    }
  }
}
