import { ConfigError } from '../config/config.ts';
import type { Address } from '../domain/address.ts';

const ZERO = '0x0000000000000000000000000000000000000000';

/**
 * With a protocol fee on, every escrow must have somewhere to pay it, and it must be where the operator says
 * (FEE_RECIPIENT, when set): the escrow's recipient is immutable, so a mismatch means every order's fee would go to
 * an address the operator did not choose, or every deposit would revert. Refuses the start with one line.
 */
export async function checkFeeRecipients(input: {
  protocolFeeBps: number;
  feeRecipient: Address | null;
  read: () => Promise<Map<string, Address>>;
}): Promise<void> {
  if (input.protocolFeeBps === 0) return;
  for (const [chain, recipient] of await input.read()) {
    if (recipient === ZERO) {
      throw new ConfigError([
        `PROTOCOL_FEE_BPS is ${input.protocolFeeBps}, but the escrow on chain ${chain} has no fee recipient: every deposit would revert`,
      ]);
    }
    if (input.feeRecipient && recipient.toLowerCase() !== input.feeRecipient.toLowerCase()) {
      throw new ConfigError([
        `FEE_RECIPIENT is ${input.feeRecipient}, but the escrow on chain ${chain} pays fees to ${recipient}`,
      ]);
    }
  }
}
