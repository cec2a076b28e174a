import type { FastifyBaseLogger } from 'fastify';
import type { ChainRegistry } from '../chains/chain-registry.ts';
import type { SettlementChain } from '../chains/settlement-chain.ts';
import { type GraceRoute, graceShortfalls } from '../domain/settle-grace-rule.ts';

/**
 * Warns, when the worker starts, about every LayerZero route whose fallbacks (proveAfterSeconds of the output
 * chain + executeAfterSeconds of the input chain) do not fit in the input escrow's settleGrace: see
 * settle-grace-rule.ts. A warning, not a refusal: the grace is fixed on chain, the fallbacks only matter when the
 * filler and LayerZero's executor are both late, and the operator fixes it by lowering the two settings.
 */
export async function warnOnShortSettleGrace(input: {
  registry: ChainRegistry;
  chain: Pick<SettlementChain, 'settleGrace'>;
  log: Pick<FastifyBaseLogger, 'warn'>;
}): Promise<void> {
  const { registry, chain, log } = input;
  const routes: GraceRoute[] = [];
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
    for (const to of registry.chains) {
      if (to.name === from.name) continue;
      routes.push({
        inputChain: from.name,
        outputChain: to.name,
        settleGrace,
        proveAfter: to.proveAfterSeconds,
        executeAfter: from.executeAfterSeconds,
      });
    }
  }
  for (const line of graceShortfalls(routes))
    log.warn(`settle grace shorter than the worker's fallbacks: ${line}`);
}
