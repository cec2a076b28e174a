import { recoverTypedDataAddress } from 'viem';
import { sameAddress } from './address.ts';
import type { OrderTypedData } from './order-typed-data.ts';

/**
 * True when `signature` over the order's typed data recovers `offerer`. A malformed signature is simply
 * not valid: it never throws, so the caller answers INVALID_SIGNATURE rather than a 500.
 */
export async function isOrderSignedBy(
  typedData: OrderTypedData,
  signature: `0x${string}`,
  offerer: string,
): Promise<boolean> {
  try {
    const recovered = await recoverTypedDataAddress({
      ...(typedData as unknown as Parameters<typeof recoverTypedDataAddress>[0]),
      signature,
    });
    return sameAddress(recovered, offerer);
  } catch {
    return false;
  }
}
