import {
  type Abi,
  type Address,
  BaseError,
  ContractFunctionRevertedError,
  createPublicClient,
  createWalletClient,
  encodeFunctionData,
  getAddress,
  type Hex,
  http,
  keccak256,
  type PublicClient,
  type TransactionReceipt,
  type WalletClient,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { chainById } from '../chain-by-id.ts';
import { ChainError } from '../chain-error.ts';
import { lzErrorAbi } from './lz-artifacts.ts';

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
  const chain = chainById(chainId, rpcUrl);
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
    throw new ChainError(`${what} on chain ${client.chainId}: no receipt for ${hash}`, {
      cause,
      retryable: true,
    });
  }
  if (receipt.status !== 'success') {
    throw new ChainError(`${what} on chain ${client.chainId} reverted (tx ${hash})`);
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
    throw new ChainError(`deploying ${what} on chain ${client.chainId} was refused`, { cause });
  }
  const receipt = await awaitSuccess(client, hash, `deploying ${what}`);
  if (!receipt.contractAddress) throw new ChainError(`deploying ${what}: no contract address`);
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
  return awaitLzReceipt(client, await sendLz(client, call), call);
}

/**
 * How to send a call without simulating it: a call that depends on transactions not mined yet (the commit after
 * the DVNs' verifications) would be refused by a simulation or a gas estimate against the chain as it is.
 */
export interface LzUnsimulated {
  gas: bigint;
  nonce: number;
  fees: LzFees;
}

export interface LzFees {
  maxFeePerGas: bigint;
  maxPriorityFeePerGas: bigint;
}

/**
 * Sends one contract call and answers its hash. Simulated first (see writeLz) unless `unsimulated` gives the gas
 * and nonce; `fees` (or `unsimulated.fees`) set the transaction's fees instead of the node's suggestion.
 */
export async function sendLz(
  client: LzChainClient,
  call: LzCall,
  send: { unsimulated?: LzUnsimulated; fees?: LzFees } = {},
): Promise<Hex> {
  const account = client.wallet.account ?? client.account;
  try {
    if (send.unsimulated) {
      const { gas, nonce, fees } = send.unsimulated;
      return await client.wallet.writeContract({
        ...call,
        account,
        chain: client.wallet.chain,
        gas,
        nonce,
        ...fees,
      } as never);
    }
    const { request } = await client.publicClient.simulateContract({
      address: call.address,
      abi: [...call.abi, ...lzErrorAbi()],
      functionName: call.functionName,
      args: call.args,
      value: call.value,
      account,
      ...send.fees,
    } as never);
    return await client.wallet.writeContract(request as never);
  } catch (cause) {
    const reason = revertReason(cause);
    throw new ChainError(
      `${describeCall(call)} on chain ${client.chainId} was refused${reason ? `: ${reason}` : ''}`,
      { cause },
    );
  }
}

/** Waits (bounded) for a call sent by sendLz; a reverted or missing receipt is a ChainError. */
export function awaitLzReceipt(client: LzChainClient, hash: Hex, call: LzCall): Promise<TransactionReceipt> {
  return awaitSuccess(client, hash, describeCall(call));
}

function describeCall(call: LzCall): string {
  return `${String(call.functionName)} at ${call.address}`;
}

/** The custom error's name (or the revert string) of a simulated call, when the node reported one. */
function revertReason(error: unknown): string | undefined {
  if (!(error instanceof BaseError)) return undefined;
  const reverted = error.walk((inner) => inner instanceof ContractFunctionRevertedError);
  if (!(reverted instanceof ContractFunctionRevertedError)) return undefined;
  // reason is set for Error(string) and Panic, whose errorName is only "Error" or "Panic".
  return reverted.reason ?? reverted.data?.errorName ?? reverted.signature;
}

/** A call signed and not yet broadcast: a batch signed first goes out back to back, in one block's window. */
export interface SignedLz {
  call: LzCall;
  rawTx: Hex;
  hash: Hex;
}

/**
 * Signs one contract call without sending it: simulated first (see writeLz) unless `unsimulated` gives the gas and
 * nonce, which then need no RPC call at all. Otherwise as sendLz.
 */
export async function signLz(
  client: LzChainClient,
  call: LzCall,
  send: { unsimulated?: LzUnsimulated; fees?: LzFees } = {},
): Promise<SignedLz> {
  const account = client.wallet.account ?? client.account;
  try {
    if (!send.unsimulated) {
      await client.publicClient.simulateContract({
        address: call.address,
        abi: [...call.abi, ...lzErrorAbi()],
        functionName: call.functionName,
        args: call.args,
        value: call.value,
        account,
        ...send.fees,
      } as never);
    }
    const data = encodeFunctionData({ abi: call.abi, functionName: call.functionName, args: call.args });
    const fixed = send.unsimulated
      ? { gas: send.unsimulated.gas, nonce: send.unsimulated.nonce, ...send.unsimulated.fees }
      : { ...send.fees };
    const request = await client.wallet.prepareTransactionRequest({
      account,
      chain: client.wallet.chain,
      to: call.address,
      data,
      ...(call.value === undefined ? {} : { value: call.value }),
      ...fixed,
    } as never);
    const rawTx = await client.wallet.signTransaction(request as never);
    return { call, rawTx, hash: keccak256(rawTx) };
  } catch (cause) {
    const reason = revertReason(cause);
    throw new ChainError(
      `${describeCall(call)} on chain ${client.chainId} was refused${reason ? `: ${reason}` : ''}`,
      { cause },
    );
  }
}

/** Broadcasts a call signed by signLz and answers its hash. */
export async function broadcastLz(client: LzChainClient, signed: SignedLz): Promise<Hex> {
  try {
    return await client.publicClient.sendRawTransaction({ serializedTransaction: signed.rawTx });
  } catch (cause) {
    throw new ChainError(`${describeCall(signed.call)} on chain ${client.chainId} was not accepted`, {
      cause,
    });
  }
}
