import { createTestClient, http } from 'viem';
import { chainById } from '../chains/chain-by-id.ts';
import type { ChainLogger } from '../chains/chain-logger.ts';

export /** Switches an anvil from mining each transaction at once to one block every `seconds` (automine off). */
async function startIntervalMining(rpcUrl: string, chainId: number, seconds: number, log?: ChainLogger) {
  const testClient = createTestClient({
    mode: 'anvil',
    chain: chainById(chainId, rpcUrl),
    transport: http(rpcUrl),
  });
  await testClient.setIntervalMining({ interval: seconds });
  log?.info({ chainId, blockTimeSeconds: seconds }, 'devnet interval mining on');
}
