import { type Hex, parseEventLogs } from 'viem';
import { loadLzArtifact } from '../../src/chains/layerzero/lz-artifacts.ts';
import { lzChainClient } from '../../src/chains/layerzero/lz-chain-client.ts';
import { decodeLzPacket, type LzPacket } from '../../src/chains/layerzero/lz-packet.ts';
import { ANVIL_KEYS } from '../../src/devnet/devnet.ts';
import { DEVNET_DVN_KEYS, DEVNET_LZ_CONFIRMATIONS } from '../../src/devnet/devnet-layerzero.ts';
import { dvnVerify } from '../../src/devnet/layerzero/lz-delivery.ts';
import type { Harness } from './harness.ts';

/** A read client of one devnet, straight to its anvil. */
export function devnetClient(h: Harness, chainName: string) {
  const chain = h.devnets.chains.find((c) => c.name === chainName)!;
  return lzChainClient(chain.rpcUrl, chain.chainId, ANVIL_KEYS[0]).publicClient;
}

/** The LayerZero packet a transaction on chain B sent (EndpointV2's PacketSent). */
export async function packetOf(h: Harness, txHash: Hex): Promise<LzPacket> {
  const receipt = await devnetClient(h, h.chainB).getTransactionReceipt({ hash: txHash });
  const [sent] = parseEventLogs({
    abi: loadLzArtifact('EndpointV2').abi,
    eventName: 'PacketSent',
    logs: receipt.logs,
  }) as unknown as { args: { encodedPayload: Hex } }[];
  return decodeLzPacket(sent!.args.encodedPayload);
}

/** Only the DVNs' part of a delivery (the relay stopped): each verifies the packet on chain A with its own key. */
export async function verifyByDvns(h: Harness, packet: LzPacket): Promise<void> {
  const a = h.devnets.chains.find((c) => c.name === h.chainA)!;
  const lz = a.layerzero!;
  for (const [i, dvn] of lz.dvns.entries()) {
    const key = DEVNET_DVN_KEYS[i]!;
    const client = lzChainClient(a.rpcUrl, a.chainId, key);
    await dvnVerify(client, key, dvn, lz, packet, BigInt(DEVNET_LZ_CONFIRMATIONS));
  }
}
