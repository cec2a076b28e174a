import {
  decodeFunctionResult,
  encodeFunctionData,
  type Hex,
  HttpRequestError,
  maxUint128,
  parseAbi,
  TimeoutError,
} from 'viem';
import type { Address } from '../domain/address.ts';
import { AppError } from '../domain/app-error.ts';
import { walkCauses } from '../domain/cause-walk.ts';
import { type ChainRegistry, registryChain } from './chain-registry.ts';
import { sendingFees } from './transactions/tx-sender.ts';
import { publicClientsFor, type RpcErrorCounter } from './viem-client.ts';

/** EIP-1271's answer when the contract takes the signature as its own. */
const ERC1271_MAGIC = '0x1626ba7e';

const signatureAbi = parseAbi([
  'function isValidSignature(bytes32 hash, bytes signature) view returns (bytes4)',
  'function nonces(address owner) view returns (uint256)',
]);

/** The chain reads behind signatures the API checks: contract signers (EIP-1271) and EIP-2612 permit nonces. */
export interface SignatureChecks {
  /** Whether `address` has code on the chain (a contract wallet signs through EIP-1271, not ECDSA). */
  isContract(chainName: string, address: Address): Promise<boolean>;
  /**
   * Whether the contract `signer` takes `signature` over `hash` (isValidSignature answers the magic value), asked
   * as the deposit will ask it: called by the chain's escrow at the fees a transaction pays now, never priced at
   * zero (a contract that answers only when `tx.gasprice == 0` is refused here). A revert or any other answer is
   * false; an unreachable chain is 503, never a refusal.
   */
  contractSigned(chainName: string, signer: Address, hash: Hex, signature: Hex): Promise<boolean>;
  /** `owner`'s current EIP-2612 nonce at `token`: the one its next permit must carry. */
  permitNonce(chainName: string, token: Address, owner: Address): Promise<bigint>;
}

function unreachable(chainName: string, cause: unknown): AppError {
  return new AppError(
    'SERVICE_UNAVAILABLE',
    `chain ${chainName} could not be reached; try again shortly`,
    [],
    { 'retry-after': '5' },
    { cause },
  );
}

/** The node could not be asked (connection, timeout, HTTP error), as opposed to an answer it gave. */
function isUnreachable(error: unknown): boolean {
  return walkCauses(error, (e) => e instanceof HttpRequestError || e instanceof TimeoutError) !== null;
}

export function createSignatureChecks(options: {
  readonly registry: ChainRegistry;
  readonly rpcErrors?: RpcErrorCounter;
}): SignatureChecks {
  const client = publicClientsFor(options.registry, 5000, options.rpcErrors);
  return {
    async isContract(chainName, address) {
      try {
        const code = await client(chainName).getCode({ address });
        return code !== undefined && code !== '0x';
      } catch (error) {
        throw unreachable(chainName, error);
      }
    },

    async contractSigned(chainName, signer, hash, signature) {
      const chain = registryChain(options.registry, chainName);
      const escrow = chain.contracts.escrow;
      try {
        const c = client(chainName);
        const fees = await sendingFees(c, chain.maxFeePerGas);
        const { data } = await c.call({
          account: escrow,
          to: signer,
          data: encodeFunctionData({
            abi: signatureAbi,
            functionName: 'isValidSignature',
            args: [hash, signature],
          }),
          ...fees,
          // The escrow holds no ether; the call's gas must be paid for it to run priced as a transaction.
          stateOverride: [{ address: escrow, balance: maxUint128 }],
        });
        if (!data) return false;
        const answer = decodeFunctionResult({ abi: signatureAbi, functionName: 'isValidSignature', data });
        return answer.toLowerCase() === ERC1271_MAGIC;
      } catch (error) {
        // The node answered: a revert, no data (no such function) or a malformed answer is no signature.
        if (!isUnreachable(error)) return false;
        throw unreachable(chainName, error);
      }
    },

    async permitNonce(chainName, token, owner) {
      try {
        return await client(chainName).readContract({
          address: token,
          abi: signatureAbi,
          functionName: 'nonces',
          args: [owner],
        });
      } catch (error) {
        throw unreachable(chainName, error);
      }
    },
  };
}
