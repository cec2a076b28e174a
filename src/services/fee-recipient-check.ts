import { ConfigError } from '../config/config.ts';
import type { Address } from '../domain/address.ts';

const ZERO = '0x0000000000000000000000000000000000000000';

/**
 * Every escrow enforces the protocol fee it was deployed with, for every order however it is opened, so
 * PROTOCOL_FEE_BPS must be exactly that fee (a different one would make every deposit revert), and the fee must go
 * where the operator says (FEE_RECIPIENT, when set). Both are immutable in the escrow. Refuses the start with one
 * line.
 */
export async function checkFeeRecipients(input: {
  protocolFeeBps: number;
  feeRecipient: Address | null;
  read: () => Promise<Map<string, { readonly recipient: Address; readonly bps: number }>>;
  /** Without a fee, escrows that cannot be read at start are not fatal (their chains may be down): reported here. */
  unreadable: (err: unknown) => void;
}): Promise<void> {
  let terms: Map<string, { readonly recipient: Address; readonly bps: number }>;
  try {
    terms = await input.read();
  } catch (err) {
    if (input.protocolFeeBps !== 0) throw err;
    input.unreadable(err);
    return;
  }
  for (const [chain, { recipient, bps }] of terms) {
    if (bps !== input.protocolFeeBps) {
      throw new ConfigError([
        `PROTOCOL_FEE_BPS is ${input.protocolFeeBps}, but the escrow on chain ${chain} takes ${bps} bps: every deposit would revert`,
      ]);
    }
    if (input.protocolFeeBps === 0) continue;
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
