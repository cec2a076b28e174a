import type { PrivateKeyAccount } from 'viem/accounts';
import type { ChainRegistry } from '../chains/chain-registry.ts';
import type { SettlementChain } from '../chains/settlement/settlement-chain.ts';
import { ConfigError } from '../config/config.ts';

/**
 * What would make every settle revert, put both powers in one key, or let a key release escrowed funds, checked
 * before the worker starts: the relayer (pays gas) and the attester (proves fills) are different keys; every
 * attester chain's messenger trusts the attester key given; and every LayerZero chain's escrow is settled by the
 * registry's FerryApp (`contracts.fill`) only, never by some key. A problem refuses the start with one line naming
 * the variable or the chain; keys are never printed, only their addresses.
 */
export async function checkWorkerKeys(input: {
  registry: ChainRegistry;
  chain: Pick<SettlementChain, 'messengerAttester' | 'escrowSettler'>;
  relayer: PrivateKeyAccount;
  attester: PrivateKeyAccount;
}): Promise<void> {
  const { registry, chain, relayer, attester } = input;
  if (relayer.address === attester.address) {
    throw new ConfigError([
      `RELAYER_PRIVATE_KEY and ATTESTER_PRIVATE_KEY are the same key (address ${attester.address}): use two keys, so the one that pays gas cannot also prove fills`,
    ]);
  }
  for (const { name, settlement, contracts } of registry.chains) {
    if (settlement.method === 'layerzero') {
      const settler = await chain.escrowSettler(name);
      if (settler !== contracts.fill) {
        throw new ConfigError([
          `CHAIN_REGISTRY: the escrow ${contracts.escrow} on chain ${name} is settled by ${settler}, not by the chain's FerryApp ${contracts.fill} (contracts.fill): Ferry does not run against an escrow that address can release`,
        ]);
      }
      continue;
    }
    if (settlement.messenger === null) {
      throw new ConfigError([
        `CHAIN_REGISTRY: chain ${name} has neither a "layerzero" block nor "contracts.messenger": the worker cannot settle its orders`,
      ]);
    }
    const trusted = await chain.messengerAttester(name);
    if (trusted !== null && trusted !== attester.address) {
      throw new ConfigError([
        `ATTESTER_PRIVATE_KEY is the key of ${attester.address}, but the messenger on chain ${name} trusts ${trusted}: every settle there would revert`,
      ]);
    }
  }
}
