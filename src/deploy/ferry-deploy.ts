import { type Address, type Hex, zeroAddress } from 'viem';
import type { ChainLogger } from '../chains/chain-logger.ts';
import { type ContractName, loadArtifact } from '../chains/contract-artifacts.ts';
import { loadLzArtifact } from '../chains/layerzero/lz-artifacts.ts';
import {
  DEFAULT_LZ_RPC_TIMEOUT_MS,
  deployLz,
  type LzChainClient,
  lzChainClient,
  writeLz,
} from '../chains/layerzero/lz-chain-client.ts';
import { publicClientForUrl } from '../chains/viem-client.ts';
import { FerryError } from '../domain/ferry-error.ts';

/** How the chain's escrow learns of fills: Ferry's LayerZero app, or an attester key through AttesterMessenger. */
export type FerrySettlementSetup =
  | {
      readonly method: 'layerzero';
      /** LayerZero's EndpointV2 on this chain (already deployed: LayerZero's own, or a devnet's). */
      readonly endpoint: Address;
      /** When given, the endpoint must answer this eid: a wrong endpoint address is refused before any deployment. */
      readonly eid?: number;
    }
  | { readonly method: 'attester'; readonly attester: Address };

export interface DeployFerryChainOptions {
  rpcUrl: string;
  /** Pays for and signs every deployment; on LayerZero chains it owns the app until `wireFerryChains` locks it. */
  deployerKey: Hex;
  settlement: FerrySettlementSetup;
  /** The escrow's settle grace in seconds (refunds open this long after fillDeadline). */
  settleGrace: number;
  /**
   * Where the escrow pays orders' protocol fee (immutable). Default: none, so an order with a fee cannot be
   * deposited there (PROTOCOL_FEE_BPS must stay 0 for this chain).
   */
  feeRecipient?: Address;
  /**
   * Ferry's fee in bps of every order's input (immutable; PROTOCOL_FEE_BPS must equal it). Default 0. The escrow
   * refuses a non-zero fee without a fee recipient.
   */
  protocolFeeBps?: number;
  /** Checked against the RPC's answer when given; read from the RPC otherwise. */
  chainId?: number;
  rpcTimeoutMs?: number;
  log?: ChainLogger;
}

export interface FerryChainDeployment {
  chainId: number;
  /** `fill` is FerryApp on LayerZero chains (also the escrow's settler), FerryFill on attester chains. */
  contracts: { escrow: Address; fill: Address; messenger?: Address };
  /** The block of the first Ferry contract: log scans start there. */
  startBlock: bigint;
}

/** A chain that cannot take Ferry's contracts as asked: wrong chain id, no endpoint, wrong eid. */
export class FerryDeployError extends FerryError {
  override readonly name = 'FerryDeployError';
  constructor(message: string) {
    // The same chain and the same arguments fail the same way until the operator changes one of them.
    super(message, { retryable: false });
  }
}

/**
 * Deploys Ferry's contracts on one chain. LayerZero: FerryApp(endpoint, deployer), FerryEscrow(app, grace), then
 * app.setEscrow(escrow); the app stays owned by the deployer until `wireFerryChains` has wired its peers and
 * locked it. Attester: AttesterMessenger(attester), FerryEscrow(messenger, grace), FerryFill. Each step waits for
 * its receipt, so the nonces (and on a fresh deployer the addresses) follow this order exactly.
 */
export async function deployFerryChain(options: DeployFerryChainOptions): Promise<FerryChainDeployment> {
  const timeoutMs = options.rpcTimeoutMs ?? DEFAULT_LZ_RPC_TIMEOUT_MS;
  const probe = publicClientForUrl(options.rpcUrl, timeoutMs);
  const chainId = await probe.getChainId();
  if (options.chainId !== undefined && options.chainId !== chainId) {
    throw new FerryDeployError(`the RPC answers chain id ${chainId}, not ${options.chainId}`);
  }
  const client = lzChainClient(options.rpcUrl, chainId, options.deployerKey, timeoutMs);
  const grace = BigInt(options.settleGrace);
  const artifact = (name: ContractName) => loadArtifact(name);
  const { settlement } = options;
  const feeTo = options.feeRecipient ?? zeroAddress;
  const feeBps = BigInt(options.protocolFeeBps ?? 0);
  if (feeBps !== 0n && feeTo === zeroAddress) {
    throw new FerryDeployError(`a protocol fee of ${feeBps} bps needs a fee recipient`);
  }

  if (settlement.method === 'layerzero') {
    await assertEndpoint(client, settlement.endpoint, settlement.eid);
    const app = await deployLz(client, 'FerryApp', artifact('FerryApp'), [
      settlement.endpoint,
      client.account,
    ]);
    const escrow = await deployLz(client, 'FerryEscrow', artifact('FerryEscrow'), [
      app.address,
      grace,
      feeTo,
      feeBps,
    ]);
    await writeLz(client, {
      address: app.address,
      abi: artifact('FerryApp').abi,
      functionName: 'setEscrow',
      args: [escrow.address],
    });
    const contracts = { escrow: escrow.address, fill: app.address };
    options.log?.info({ chainId, ...contracts }, 'Ferry app and escrow deployed');
    return { chainId, contracts, startBlock: app.receipt.blockNumber };
  }
  const messenger = await deployLz(client, 'AttesterMessenger', artifact('AttesterMessenger'), [
    settlement.attester,
  ]);
  const escrow = await deployLz(client, 'FerryEscrow', artifact('FerryEscrow'), [
    messenger.address,
    grace,
    feeTo,
    feeBps,
  ]);
  const fill = await deployLz(client, 'FerryFill', artifact('FerryFill'), []);
  const contracts = { escrow: escrow.address, fill: fill.address, messenger: messenger.address };
  options.log?.info({ chainId, ...contracts }, 'Ferry attester contracts deployed');
  return { chainId, contracts, startBlock: messenger.receipt.blockNumber };
}

async function assertEndpoint(client: LzChainClient, endpoint: Address, eid: number | undefined) {
  const code = await client.publicClient.getCode({ address: endpoint });
  if (code === undefined || code === '0x') {
    throw new FerryDeployError(
      `no contract at the LayerZero endpoint ${endpoint} on chain ${client.chainId}`,
    );
  }
  if (eid === undefined) return;
  const onChain = Number(
    await client.publicClient.readContract({
      address: endpoint,
      abi: loadLzArtifact('EndpointV2').abi,
      functionName: 'eid',
    }),
  );
  if (onChain !== eid) {
    throw new FerryDeployError(
      `the endpoint ${endpoint} on chain ${client.chainId} has eid ${onChain}, not ${eid}`,
    );
  }
}
