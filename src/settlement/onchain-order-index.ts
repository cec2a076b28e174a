import type { FastifyBaseLogger } from 'fastify';
import { type ChainRegistry, outputChainsOf, reservedAddressRole } from '../chains/chain-registry.ts';
import { ONCHAIN_ACCOUNT_ID, type OnchainOpen, onchainOrderRecords } from '../domain/onchain-order.ts';
import { buildOrderTypedData, hashOrderTypedData } from '../domain/order-typed-data.ts';
import { publicOrderView } from '../domain/public-views.ts';
import type { UnitOfWork } from '../store/engine/database.ts';
import type { Executor } from '../store/engine/db-types.ts';
import { insertOnchainOrder, knownOrderHashes } from '../store/tables/onchain-orders-store.ts';

/**
 * The output chain of an order a wallet opened on one of Ferry's escrows, or why Ferry does not follow it: it
 * follows orders on routes it settles, between tokens it serves, of at least the minimum swap, whose escrow key is
 * the hash of their terms (so the worker's reads and the filler's proof agree with the escrow).
 */
function followed(registry: ChainRegistry, open: OnchainOpen): { outputChain: string } | { reason: string } {
  const { terms } = open;
  const output = registry.chains.find((c) => BigInt(c.chainId) === terms.outputChainId);
  const input = registry.chain(open.chain);
  if (!input || !output || !outputChainsOf(registry, input).includes(output.name))
    return { reason: `output chain ${terms.outputChainId} is not served from ${open.chain}` };
  const inputToken = registry.token(open.chain, terms.inputToken);
  if (!inputToken) return { reason: `input token ${terms.inputToken} is not served` };
  if (!registry.token(output.name, terms.outputToken))
    return { reason: `output token ${terms.outputToken} is not served` };
  // The API's rules for any order: every order costs the relayer gas on two chains, so no dust; no payout to a
  // contract of Ferry's.
  if (terms.inputAmount < inputToken.minAmount)
    return { reason: `input ${terms.inputAmount} is below the minimum swap (${inputToken.minAmount})` };
  const reserved = reservedAddressRole(registry, terms.recipient);
  if (reserved) return { reason: `the recipient is ${reserved}` };
  const hash = hashOrderTypedData(buildOrderTypedData(terms, open.escrow));
  if (hash.toLowerCase() !== open.orderHash.toLowerCase())
    return { reason: 'its orderId is not the hash of its terms' };
  return { outputChain: output.name };
}

/**
 * The orders wallets opened on chain in one scanned range (Open events of orders Ferry has no row of), written in
 * the range's transaction: each with its request and accepted quote, `source: 'onchain'`, status `deposited`,
 * and its `order.created` event; one open to any filler from the start also gets `order.exclusivityLapsed`, so
 * liquidity providers hear of it as of any order whose exclusivity lapsed.
 */
export async function recordOnchainOpens(
  deps: { registry: ChainRegistry; log: FastifyBaseLogger },
  trx: Executor,
  uow: UnitOfWork,
  opens: readonly OnchainOpen[],
  now: Date,
): Promise<void> {
  if (opens.length === 0) return;
  const known = await knownOrderHashes(
    trx,
    opens.map((o) => o.orderHash.toLowerCase()),
  );
  for (const open of opens) {
    const key = open.orderHash.toLowerCase();
    if (known.has(key)) continue;
    known.add(key);
    const route = followed(deps.registry, open);
    if ('reason' in route) {
      deps.log.info(
        { chain: open.chain, orderHash: open.orderHash, txHash: open.txHash, reason: route.reason },
        'order opened on chain not followed',
      );
      continue;
    }
    const rows = onchainOrderRecords({ open, outputChain: route.outputChain, now });
    await insertOnchainOrder(trx, rows);
    const event = { occurredAt: now, data: publicOrderView(rows.order), accountIds: [ONCHAIN_ACCOUNT_ID] };
    uow.emit({ type: 'order.created', ...event });
    if (rows.order.exclusivityLapsedAt) uow.emit({ type: 'order.exclusivityLapsed', ...event });
    deps.log.info(
      { orderId: rows.order.id, chain: open.chain, orderHash: open.orderHash, txHash: open.txHash },
      'order opened on chain; following it',
    );
  }
}
