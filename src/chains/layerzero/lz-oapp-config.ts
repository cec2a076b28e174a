import { type Address, encodeAbiParameters, getAddress, type Hex } from 'viem';
import { loadLzArtifact } from './lz-artifacts.ts';
import { type LzChainClient, writeLz } from './lz-chain-client.ts';
import type { LzChainDeployment } from './lz-chain-deployment.ts';

/** ULN302's UlnConfig: which DVNs must (and may) verify a path's packets, after how many blocks. */
export interface LzUlnConfig {
  confirmations: bigint;
  requiredDVNCount: number;
  optionalDVNCount: number;
  optionalDVNThreshold: number;
  requiredDVNs: Address[];
  optionalDVNs: Address[];
}

/** The largest message the devnet executor accepts (SendUln302 refuses bigger ones at send time). */
export const LZ_DEVNET_MAX_MESSAGE_SIZE = 10_000;

/** Config types of ULN302 in EndpointV2.setConfig / getConfig. */
export const LZ_CONFIG_TYPE_EXECUTOR = 1;
export const LZ_CONFIG_TYPE_ULN = 2;

/** Every DVN of the chain required, none optional; ULN302 wants the list sorted ascending without duplicates. */
export function requiredDvnsConfig(
  dvns: readonly { address: Address }[],
  confirmations: bigint,
): LzUlnConfig {
  const requiredDVNs = [...new Set(dvns.map((dvn) => getAddress(dvn.address)))].sort((a, b) =>
    BigInt(a) < BigInt(b) ? -1 : 1,
  );
  return {
    confirmations,
    requiredDVNCount: requiredDVNs.length,
    optionalDVNCount: 0,
    optionalDVNThreshold: 0,
    requiredDVNs,
    optionalDVNs: [],
  };
}

/** ULN302's "none" for a DVN count: 0 would mean "use the endpoint owner's default" instead. */
export const LZ_NIL_DVN_COUNT = 255;

const byAddress = (a: Address, b: Address) => (BigInt(a) < BigInt(b) ? -1 : 1);

/**
 * The ULN config an OApp pins for a path from a registry entry's verifier set: the required DVNs, and the optional
 * ones with their threshold or explicitly none (LZ_NIL_DVN_COUNT), sorted as ULN302 demands.
 */
export function pinnedUlnConfig(
  verifiers: {
    readonly requiredDvns: readonly Address[];
    readonly optionalDvns: readonly Address[];
    readonly optionalDvnThreshold: number;
  },
  confirmations: bigint,
): LzUlnConfig {
  const requiredDVNs = [...new Set(verifiers.requiredDvns.map((a) => getAddress(a)))].sort(byAddress);
  const optionalDVNs = [...new Set(verifiers.optionalDvns.map((a) => getAddress(a)))].sort(byAddress);
  return {
    confirmations,
    requiredDVNCount: requiredDVNs.length,
    optionalDVNCount: optionalDVNs.length > 0 ? optionalDVNs.length : LZ_NIL_DVN_COUNT,
    optionalDVNThreshold: optionalDVNs.length > 0 ? verifiers.optionalDvnThreshold : 0,
    requiredDVNs,
    optionalDVNs,
  };
}

/** The libraries and executor an OApp's config points at on its own chain. */
export type LzLocalLibraries = Pick<
  LzChainDeployment,
  'endpoint' | 'sendUln302' | 'receiveUln302' | 'executor'
>;

const ULN_CONFIG_TUPLE = [
  {
    type: 'tuple',
    components: [
      { name: 'confirmations', type: 'uint64' },
      { name: 'requiredDVNCount', type: 'uint8' },
      { name: 'optionalDVNCount', type: 'uint8' },
      { name: 'optionalDVNThreshold', type: 'uint8' },
      { name: 'requiredDVNs', type: 'address[]' },
      { name: 'optionalDVNs', type: 'address[]' },
    ],
  },
] as const;

const EXECUTOR_CONFIG_TUPLE = [
  {
    type: 'tuple',
    components: [
      { name: 'maxMessageSize', type: 'uint32' },
      { name: 'executor', type: 'address' },
    ],
  },
] as const;

export function encodeUlnConfig(config: LzUlnConfig): Hex {
  return encodeAbiParameters(ULN_CONFIG_TUPLE, [config]);
}

export function encodeExecutorConfig(executor: Address): Hex {
  return encodeAbiParameters(EXECUTOR_CONFIG_TUPLE, [
    { maxMessageSize: LZ_DEVNET_MAX_MESSAGE_SIZE, executor },
  ]);
}

/**
 * Pins an OApp's own config for one remote eid through EndpointV2.setConfig, instead of following the endpoint's
 * defaults (which the endpoint's owner may change later): the executor and ULN config on the send library, the
 * ULN config on the receive library (`receiveUln`, when the inbound path waits a different number of blocks on
 * the remote chain; default `uln`). `client` must be the OApp's delegate (its owner, for LayerZero's OApp base).
 */
export async function setLzOAppConfig(
  client: LzChainClient,
  local: LzLocalLibraries,
  oapp: Address,
  remoteEid: number,
  uln: LzUlnConfig,
  receiveUln: LzUlnConfig = uln,
): Promise<void> {
  const abi = loadLzArtifact('EndpointV2').abi;
  const executorConfig = encodeExecutorConfig(local.executor);
  await writeLz(client, {
    address: local.endpoint,
    abi,
    functionName: 'setConfig',
    args: [
      oapp,
      local.sendUln302,
      [
        { eid: remoteEid, configType: LZ_CONFIG_TYPE_EXECUTOR, config: executorConfig },
        { eid: remoteEid, configType: LZ_CONFIG_TYPE_ULN, config: encodeUlnConfig(uln) },
      ],
    ],
  });
  await writeLz(client, {
    address: local.endpoint,
    abi,
    functionName: 'setConfig',
    args: [
      oapp,
      local.receiveUln302,
      [{ eid: remoteEid, configType: LZ_CONFIG_TYPE_ULN, config: encodeUlnConfig(receiveUln) }],
    ],
  });
}
