import { type ChainRegistry, outputChainsOf, reservedAddressRole } from '../chains/chain-registry.ts';
import { type Address, normalizeAddress } from '../domain/address.ts';
import { parseAmount } from '../domain/amount.ts';
import { AppError, fieldError } from '../domain/app-error.ts';
import type { QuoteRequestTerms } from '../domain/records.ts';

/** A quote request as the API takes it: addresses and amounts as text, chains by name. */
export interface QuoteRequestInput {
  readonly recipient: string;
  readonly offerer: string;
  readonly inputToken: string;
  readonly outputToken: string;
  readonly inputAmount: string;
  readonly inputChain: string;
  readonly outputChain: string;
}

/** Checks the terms against the registry; every problem is reported, each with its field path. */
export function validateQuoteRequestTerms(
  registry: ChainRegistry,
  input: QuoteRequestInput,
): QuoteRequestTerms {
  const problems: AppError[] = [];
  const attempt = <T>(fn: () => T): T | undefined => {
    try {
      return fn();
    } catch (error) {
      if (error instanceof AppError) problems.push(error);
      else throw error;
      return undefined;
    }
  };
  const offerer = attempt(() => normalizeAddress(input.offerer, 'body.offerer'));
  const recipient = attempt(() => checkRecipient(registry, input.recipient));
  const inputAmount = attempt(() => parseAmount(input.inputAmount, 'body.inputAmount'));
  const inputToken = attempt(() =>
    checkToken(registry, input.inputChain, input.inputToken, 'inputChain', 'inputToken'),
  );
  const outputToken = attempt(() =>
    checkToken(registry, input.outputChain, input.outputToken, 'outputChain', 'outputToken'),
  );
  if (inputAmount !== undefined && inputToken !== undefined) {
    attempt(() => checkMinAmount(registry, input.inputChain, inputToken, inputAmount));
  }
  if (inputToken !== undefined && outputToken !== undefined) {
    attempt(() => checkSettlementPath(registry, input.inputChain, input.outputChain));
  }
  if (problems.length > 0) {
    // One summary for the whole body; the most specific code wins so clients can branch on it.
    const code =
      problems.find((p) => p.code === 'INVALID_CHAIN')?.code ??
      problems.find((p) => p.code === 'INVALID_TOKEN')?.code ??
      (problems.every((p) => p.code === 'AMOUNT_TOO_SMALL') ? 'AMOUNT_TOO_SMALL' : 'VALIDATION_ERROR');
    throw new AppError(
      code,
      problems.length === 1 ? (problems[0]?.message ?? 'invalid request') : 'the request has invalid fields',
      problems.flatMap((p) => p.details),
    );
  }
  // Every field parsed (problems would have thrown above), so the casts only drop `undefined`.
  return {
    offerer: offerer as Address,
    recipient: recipient as Address,
    inputToken: inputToken as Address,
    outputToken: outputToken as Address,
    inputAmount: inputAmount as bigint,
    inputChain: input.inputChain,
    outputChain: input.outputChain,
  };
}

/** A route nobody can prove a fill on (a LayerZero escrow, an attester output chain) is refused up front. */
function checkSettlementPath(registry: ChainRegistry, inputChain: string, outputChain: string): void {
  const input = registry.chain(inputChain);
  if (!input || inputChain === outputChain) return;
  const outputs = outputChainsOf(registry, input);
  if (outputs.includes(outputChain)) return;
  const method = registry.chain(outputChain)?.settlement.method;
  throw fieldError(
    'INVALID_CHAIN',
    'body.outputChain',
    `no settlement path from ${inputChain} (${input.settlement.method}) to ${outputChain} (${method}): a fill there ` +
      `could not be proven to ${inputChain}'s escrow; output chains for ${inputChain}: ${outputs.join(', ') || 'none'}`,
  );
}

function checkRecipient(registry: ChainRegistry, raw: string): Address {
  const recipient = normalizeAddress(raw, 'body.recipient');
  const role = reservedAddressRole(registry, recipient);
  if (role !== null) {
    throw fieldError(
      'VALIDATION_ERROR',
      'body.recipient',
      `must not be ${role}: tokens sent there could never be spent`,
    );
  }
  return recipient;
}

/** Every order costs the relayer gas on two chains, so dust is refused (the token's registry minAmount). */
function checkMinAmount(
  registry: ChainRegistry,
  chainName: string,
  tokenAddress: Address,
  amount: bigint,
): void {
  const token = registry.token(chainName, tokenAddress);
  if (token && amount < token.minAmount) {
    throw fieldError(
      'AMOUNT_TOO_SMALL',
      'body.inputAmount',
      `must be at least ${token.minAmount} base units of ${token.symbol} on ${chainName} (the minimum swap)`,
    );
  }
}

function checkToken(
  registry: ChainRegistry,
  chainName: string,
  token: string,
  chainField: string,
  tokenField: string,
) {
  if (!registry.chain(chainName)) {
    const supported = registry.chains.map((c) => c.name).join(', ');
    throw fieldError(
      'INVALID_CHAIN',
      `body.${chainField}`,
      `chain "${chainName}" is not supported; supported chains: ${supported}`,
    );
  }
  const address = normalizeAddress(token, `body.${tokenField}`);
  if (!registry.token(chainName, address)) {
    throw fieldError(
      'INVALID_TOKEN',
      `body.${tokenField}`,
      `token ${address} is not supported on ${chainName}`,
    );
  }
  return address;
}
