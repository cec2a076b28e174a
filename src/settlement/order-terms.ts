import type { Hex } from 'viem';
import type { EscrowOrder } from '../chains/settlement-chain.ts';
import type { Address } from '../domain/address.ts';
import type { OrderTypedData } from '../domain/order-typed-data.ts';

/** The escrow's order struct, rebuilt from the typed data the offerer signed (strings back to bigint). */
export function escrowOrderFrom(typedData: OrderTypedData): EscrowOrder {
  const m = typedData.message;
  return {
    offerer: m.offerer as Address,
    recipient: m.recipient as Address,
    inputToken: m.inputToken as Address,
    outputToken: m.outputToken as Address,
    inputAmount: BigInt(m.inputAmount),
    outputAmount: BigInt(m.outputAmount),
    inputChainId: BigInt(m.inputChainId),
    outputChainId: BigInt(m.outputChainId),
    filler: m.filler as Address,
    nonce: BigInt(m.nonce),
    openDeadline: BigInt(m.openDeadline),
    fillDeadline: BigInt(m.fillDeadline),
  };
}

export type OrderHash = Hex;
