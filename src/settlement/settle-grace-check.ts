import type { FastifyBaseLogger } from 'fastify';
import { type ChainRegistry, graceRoutes } from '../chains/chain-registry.ts';
import type { SettlementChain } from '../chains/settlement/settlement-chain.ts';
import { graceShortfalls } from '../domain/settle-grace-rule.ts';

/**
 * Warns, when the worker starts, about every LayerZero route whose worst case (the output chain's confirmations ×
 * block time, DVN verification, its proveAfterSeconds, the input chain's executeAfterSeconds) does not fit in the
 * input escrow's settleGrace: the rule `ferry deploy` refuses by (settle-grace-rule.ts). A warning, not a refusal:
 * the grace is fixed on chain, refusing to start would stop every order's settlement, and the operator narrows the
 * gap by lowering the two worker settings.
 */
export async function warnOnShortSettleGrace(input: {
  registry: ChainRegistry;
  chain: Pick<SettlementChain, 'settleGrace'>;
  log: Pick<FastifyBaseLogger, 'warn'>;
}): Promise<void> {
  const { registry, chain, log } = input;
  for (const from of registry.chains) {
    if (from.settlement.method !== 'layerzero') continue;
    let settleGrace: bigint;
    try {
      settleGrace = await chain.settleGrace(from.name);
    } catch (err) {
      log.warn(
        { chain: from.name, err },
        "could not read the escrow's settleGrace to check the worker's fallbacks",
      );
      continue;
    }
    for (const line of graceShortfalls(graceRoutes(registry, from, settleGrace)))
      log.warn(`settle grace shorter than the worst case of a proof: ${line}`);
  }
}
