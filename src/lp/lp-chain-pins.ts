import type { Hex } from 'viem';
import type { ChainRegistry } from '../chains/chain-registry.ts';
import {
  appWiring,
  type ChainClients,
  escrowSettler,
  tokenDecimals,
} from '../chains/settlement/lp-chain-clients.ts';
import type { ChainInfo } from './ferry-api.ts';

const same = (a: string | null | undefined, b: string | null | undefined) =>
  (a ?? '').toLowerCase() === (b ?? '').toLowerCase();

/** A 32-byte LayerZero peer holding `address` (left-padded). */
const asPeer = (address: string) => `0x${address.slice(2).toLowerCase().padStart(64, '0')}`;

/**
 * Where the bot's money goes is checked against a local registry file (the operator's pin), when given: every chain
 * the API names and the file holds must agree on chain id, escrow, fill contract, messenger and each token's address
 * and decimals. A chain the file does not hold is not traded on. The first disagreement as one sentence.
 */
function againstFile(chains: readonly ChainInfo[], pinned: ChainRegistry): string | ChainInfo[] {
  const kept: ChainInfo[] = [];
  for (const info of chains) {
    const pin = pinned.chain(info.name);
    if (!pin) continue;
    const differs = (what: string, api: unknown, file: unknown) =>
      `the API's ${what} of chain ${info.name} is ${api}, the chains file says ${file}`;
    if (info.chainId !== pin.chainId) return differs('chain id', info.chainId, pin.chainId);
    if (!same(info.escrow, pin.contracts.escrow) || !same(info.contracts.escrow, pin.contracts.escrow))
      return differs('escrow', info.contracts.escrow, pin.contracts.escrow);
    if (!same(info.fill, pin.contracts.fill) || !same(info.contracts.fill, pin.contracts.fill))
      return differs('fill contract', info.contracts.fill, pin.contracts.fill);
    if (!same(info.contracts.messenger, pin.contracts.messenger ?? null))
      return differs('messenger', info.contracts.messenger, pin.contracts.messenger ?? null);
    for (const token of info.tokens) {
      const pinToken = pinned.token(info.name, token.address);
      if (!pinToken)
        return `the API names token ${token.address} on chain ${info.name}; the chains file does not`;
      if (pinToken.decimals !== token.decimals)
        return differs(`decimals of ${token.symbol}`, token.decimals, pinToken.decimals);
    }
    kept.push(info);
  }
  if (kept.length === 0) return 'no chain the API names is in the chains file';
  return kept;
}

/**
 * What the chains themselves say, whoever named the addresses: each token's `decimals()`; each escrow's settler is
 * the chain's fill contract (LayerZero) or its messenger (attester); a LayerZero app settles exactly the escrow named
 * beside it, and its peer for every other LayerZero chain is that chain's app. The first disagreement, or null.
 */
async function againstChains(
  chains: readonly ChainInfo[],
  clientsFor: (info: ChainInfo) => ChainClients,
): Promise<string | null> {
  const layerZero: ChainInfo[] = [];
  for (const info of chains) {
    const c = clientsFor(info);
    for (const token of info.tokens) {
      const decimals = await tokenDecimals(c, token.address as Hex);
      if (decimals !== token.decimals)
        return `the API says ${token.symbol} on chain ${info.name} has ${token.decimals} decimals; the token says ${decimals}`;
    }
    const settler = await escrowSettler(c, info.contracts.escrow as Hex);
    if (same(settler, info.contracts.fill)) layerZero.push(info);
    else if (!info.contracts.messenger || !same(settler, info.contracts.messenger))
      return `the escrow the API names on chain ${info.name} (${info.contracts.escrow}) is settled by ${settler}, neither its fill contract nor its messenger`;
  }
  for (const out of layerZero) {
    const others = layerZero.filter((other) => other !== out);
    const wiring = await appWiring(
      clientsFor(out),
      out.contracts.fill as Hex,
      others.map((o) => o.chainId),
    );
    if (!same(wiring.escrow, out.contracts.escrow))
      return `the fill contract the API names on chain ${out.name} settles escrow ${wiring.escrow}, not ${out.contracts.escrow}`;
    for (const input of others) {
      const peer = wiring.peers.get(input.chainId) ?? asPeer('0x');
      // No peer: the route is not wired, so no order on it can be proven (the escrow would refund it).
      if (peer === asPeer('0x')) continue;
      if (!same(peer, asPeer(input.contracts.fill)))
        return `the fill contract on chain ${out.name} has peer ${peer} for chain ${input.name}, not the app the API names there (${input.contracts.fill})`;
    }
  }
  return null;
}

/**
 * The chains the bot may trade on: the API's list, checked against the operator's chains file when given, then
 * against the chains. A refusal as one sentence when anything disagrees: the bot approves and fills nothing then.
 */
export async function pinChains(
  chains: readonly ChainInfo[],
  pinned: ChainRegistry | null,
  clientsFor: (info: ChainInfo) => ChainClients,
): Promise<{ problem: string } | { chains: ChainInfo[] }> {
  // The API answers both the flat `escrow`/`fill` and `contracts`: a disagreement between them is a lie too.
  for (const info of chains) {
    if (!same(info.escrow, info.contracts.escrow) || !same(info.fill, info.contracts.fill))
      return { problem: `the API names two different contracts for chain ${info.name}` };
  }
  const kept = pinned ? againstFile(chains, pinned) : [...chains];
  if (typeof kept === 'string') return { problem: kept };
  const problem = await againstChains(kept, clientsFor);
  return problem ? { problem } : { chains: kept };
}
