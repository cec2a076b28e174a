import type { Hex } from 'viem';
import { type ChainRegistry, registryChain } from '../chains/chain-registry.ts';
import type { SignatureChecks } from '../chains/signature-checks.ts';
import { type Address, sameAddress } from '../domain/address.ts';
import { MAX_UINT256 } from '../domain/amount.ts';
import { fieldError } from '../domain/app-error.ts';
import { canonicalSignature, recoverSigner } from '../domain/order-signature.ts';
import type { Order } from '../domain/records.ts';
import { type SwapPermit, verifiedPermitSignature } from '../domain/swap-permit.ts';

/**
 * The order signature as stored. An offerer with code on the input chain signs through EIP-1271 (a Safe, a smart
 * account: any length, checked on chain, stored as sent); anyone else with ECDSA, checked here against the quote's
 * signingHash (the EIP-712 hash this server wrote with it, so no re-hashing per swap: bench/README.md) and stored
 * in the one form the escrow's ECDSA accepts, so an order the API takes can always be deposited.
 */
export async function verifiedOrderSignature(
  signatures: SignatureChecks,
  request: { offerer: Address; inputChain: string },
  signingHash: Hex,
  sent: Hex,
): Promise<Hex> {
  const refuse = (message: string) => fieldError('INVALID_SIGNATURE', 'body.signature', message);
  const canonical = canonicalSignature(sent);
  const signer = canonical === null ? null : recoverSigner(signingHash, canonical);
  if (canonical !== null && signer !== null && sameAddress(signer, request.offerer)) return canonical;
  if (await signatures.isContract(request.inputChain, request.offerer)) {
    if (await signatures.contractSigned(request.inputChain, request.offerer, signingHash, sent)) return sent;
    throw refuse(
      `the offerer ${request.offerer} is a contract on ${request.inputChain} and its isValidSignature (EIP-1271) does not accept the signature over the quote's signingHash`,
    );
  }
  throw refuse(`the signature does not recover the offerer ${request.offerer} over the quote's typed data`);
}

/** The permit checked against the order it comes with (all before anything is written). */
export async function verifiedPermit(
  { registry, signatures }: { registry: ChainRegistry; signatures: SignatureChecks },
  order: Order,
  sent: { readonly deadline: string; readonly signature: Hex },
): Promise<SwapPermit> {
  const chain = registryChain(registry, order.inputChain);
  const token = registry.token(order.inputChain, order.inputToken);
  if (!token?.permit) {
    throw fieldError(
      'VALIDATION_ERROR',
      'body.permit',
      `${token?.symbol ?? order.inputToken} on ${order.inputChain} takes no EIP-2612 permits; approve the escrow instead`,
    );
  }
  const deadline = BigInt(sent.deadline);
  if (deadline > MAX_UINT256) {
    throw fieldError('VALIDATION_ERROR', 'body.permit.deadline', 'must not exceed 2^256-1 (a uint256)');
  }
  if (order.openDeadline !== null && deadline < order.openDeadline) {
    throw fieldError(
      'VALIDATION_ERROR',
      'body.permit.deadline',
      `must be at least the order's openDeadline (${order.openDeadline}): the deposit may happen until then`,
    );
  }
  const nonce = await signatures.permitNonce(order.inputChain, token.address, order.offerer);
  const terms = {
    domain: token.permit,
    chainId: chain.chainId,
    token: token.address,
    owner: order.offerer,
    spender: chain.contracts.escrow,
    value: order.inputAmount,
    nonce,
    deadline,
  };
  const signature = verifiedPermitSignature(terms, sent.signature);
  if (signature === null) {
    throw fieldError(
      'INVALID_SIGNATURE',
      'body.permit.signature',
      `does not recover the offerer ${order.offerer} over the EIP-2612 permit (spender ${terms.spender}, value ${terms.value}, nonce ${nonce}, deadline ${deadline})`,
    );
  }
  return { deadline, signature, nonce };
}
