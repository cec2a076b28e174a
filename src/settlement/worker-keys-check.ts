import type { PrivateKeyAccount } from 'viem/accounts';
import type { ChainRegistry } from '../chains/chain-registry.ts';
import type { SettlementChain } from '../chains/settlement-chain.ts';
import { ConfigError } from '../config/config.ts';

/**
 * What would make every settle revert, or put both powers in one key, checked before the worker starts: the
 * relayer (pays gas) and the attester (proves fills) are different keys, and every chain's messenger trusts the
 * attester key given. A problem refuses the start with one line naming the variable; keys are never printed, only
 * their addresses.
 */
export async function checkWorkerKeys(input: {
  registry: ChainRegistry;
  chain: Pick<SettlementChain, 'messengerAttester'>;
  relayer: PrivateKeyAccount;
  attester: PrivateKeyAccount;
}): Promise<void> {
  const { registry, chain, relayer, attester } = input;
  if (relayer.address === attester.address) {
    throw new ConfigError([
      `RELAYER_PRIVATE_KEY and ATTESTER_PRIVATE_KEY are the same key (address ${attester.address}): use two keys, so the one that pays gas cannot also prove fills`,
    ]);
  }
  for (const { name } of registry.chains) {
    const trusted = await chain.messengerAttester(name);
    if (trusted !== null && trusted !== attester.address) {
      throw new ConfigError([
        `ATTESTER_PRIVATE_KEY is the key of ${attester.address}, but the messenger on chain ${name} trusts ${trusted}: every settle there would revert`,
      ]);
    }
  }
}
