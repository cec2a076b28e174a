import {
  type Abi,
  type Address,
  BaseError,
  ContractFunctionRevertedError,
  createPublicClient,
  createWalletClient,
  getAddress,
  type Hex,
  http,
  type PublicClient,
  type TransactionReceipt,
  type WalletClient,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { FerryError } from '../../domain/ferry-error.ts';
import { devnetChain } from '../devnet-chain.ts';
import { lzErrorAbi } from './lz-artifacts.ts';

/** A LayerZero devnet step that failed: a transaction reverted, timed out or was refused by the node. */
export class LayerZeroDevnetError extends FerryError {
  override readonly name = 'LayerZeroDevnetError';
  /** `retryable`: only a missing receipt (a timeout, a node that went away) may go otherwise the next time. */
  constructor(message: string, options: { readonly cause?: unknown; readonly retryable?: boolean } = {}) {
    super(message, { cause: options.cause, retryable: options.retryable ?? false });
  }
}

/** One chain as the LayerZero deployer and the relay see it: a read client and one signing key. */
export interface LzChainClient {
  chainId: number;
  publicClient: PublicClient;
  wallet: WalletClient;
  account: Address;
  /** Upper bound on every RPC call and on every wait for a receipt. */
  timeoutMs: number;
}

export const DEFAULT_LZ_RPC_TIMEOUT_MS = 15_000;
/** Receipt polling: viem's 4 s default would make each of a delivery's four transactions wait seconds on anvil. */
const RECEIPT_POLL_MS = 50;

export function lzChainClient(
  rpcUrl: string,
  chainId: number,
  key: Hex,
  timeoutMs = DEFAULT_LZ_RPC_TIMEOUT_MS,
): LzChainClient {
  const chain = devnetChain(chainId, rpcUrl);
  const transport = http(rpcUrl, { timeout: timeoutMs, retryCount: 1 });
  const account = privateKeyToAccount(key);
  return {
    chainId,
    publicClient: createPublicClient({ chain, transport, pollingInterval: RECEIPT_POLL_MS }),
    wallet: createWalletClient({ account, chain, transport, pollingInterval: RECEIPT_POLL_MS }),
    account: account.address,
    timeoutMs,
  };
}

async function awaitSuccess(client: LzChainClient, hash: Hex, what: string): Promise<TransactionReceipt> {
  let receipt: TransactionReceipt;
  try {
    receipt = await client.publicClient.waitForTransactionReceipt({ hash, timeout: client.timeoutMs });
  } catch (cause) {
    throw new LayerZeroDevnetError(`${what} on chain ${client.chainId}: no receipt for ${hash}`, {
      cause,
      retryable: true,
    });
  }
  if (receipt.status !== 'success') {
    throw new LayerZeroDevnetError(`${what} on chain ${client.chainId} reverted (tx ${hash})`);
  }
  return receipt;
}

/** Deploys a contract and waits (bounded) for its receipt; answers the new address and the receipt. */
export async function deployLz(
  client: LzChainClient,
  what: string,
  artifact: { abi: Abi; bytecode: Hex },
  args: readonly unknown[],
): Promise<{ address: Address; receipt: TransactionReceipt }> {
  let hash: Hex;
  try {
    hash = await client.wallet.deployContract({
      abi: artifact.abi,
      bytecode: artifact.bytecode,
      args,
      account: client.wallet.account ?? client.account,
      chain: client.wallet.chain,
    });
  } catch (cause) {
    throw new LayerZeroDevnetError(`deploying ${what} on chain ${client.chainId} was refused`, { cause });
  }
  const receipt = await awaitSuccess(client, hash, `deploying ${what}`);
  if (!receipt.contractAddress) throw new LayerZeroDevnetError(`deploying ${what}: no contract address`);
  return { address: getAddress(receipt.contractAddress), receipt };
}

/** One contract call; the ABIs come from JSON artifacts, so names and arguments are checked on chain. */
export interface LzCall {
  address: Address;
  abi: Abi;
  functionName: string;
  args: readonly unknown[];
  value?: bigint;
}

/**
 * Simulates, sends and waits (bounded) for one contract call. Simulating first turns a revert into an error that
 * names LayerZero's custom error instead of a bare failed receipt.
 */
export async function writeLz(client: LzChainClient, call: LzCall): Promise<TransactionReceipt> {
  const what = `${String(call.functionName)} at ${call.address}`;
  let hash: Hex;
  try {
    const { request } = await client.publicClient.simulateContract({
      address: call.address,
      abi: [...call.abi, ...lzErrorAbi()],
      functionName: call.functionName,
      args: call.args,
      value: call.value,
      account: client.wallet.account ?? client.account,
    } as never);
    hash = await client.wallet.writeContract(request as never);
  } catch (cause) {
    const reason = revertReason(cause);
    throw new LayerZeroDevnetError(
      `${what} on chain ${client.chainId} was refused${reason ? `: ${reason}` : ''}`,
      {
        cause,
      },
    );
  }
  return awaitSuccess(client, hash, what);
}

/** The custom error's name (or the revert string) of a simulated call, when the node reported one. */
function revertReason(error: unknown): string | undefined {
  if (!(error instanceof BaseError)) return undefined;
  const reverted = error.walk((inner) => inner instanceof ContractFunctionRevertedError);
  if (!(reverted instanceof ContractFunctionRevertedError)) return undefined;
  return reverted.data?.errorName ?? reverted.reason ?? reverted.signature;
}
