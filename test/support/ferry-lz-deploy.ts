import { type Address, getAddress, type Hex } from 'viem';
import { loadArtifact } from '../../src/chains/contract-artifacts.ts';
import { loadLzArtifact } from '../../src/chains/layerzero/lz-artifacts.ts';
import { deployLz, type LzChainClient, writeLz } from '../../src/chains/layerzero/lz-chain-client.ts';
import { deployLzChain, type LzChainDeployment, wireLzPath } from '../../src/chains/layerzero/lz-deploy.ts';
import { requiredDvnsConfig, setLzOAppConfig } from '../../src/chains/layerzero/lz-oapp-config.ts';
import { addressToBytes32 } from '../../src/chains/layerzero/lz-packet.ts';

/** Well-known anvil accounts 6, 7 and 8 (devnets only): one key per DVN, one for the executor. */
export const DVN_KEYS: readonly Hex[] = [
  '0x92db14e403b83dfe3df233f83dfa3a0d7096f21ca9b0d6d6b8d88b2b4ec1564e',
  '0x4bbbf85ce3377467afe5d46f804f221813b2bb87f24d81f60f1fcdbf7cbf4356',
];
export const EXECUTOR_KEY: Hex = '0xdbda1821b80551c9d65939329250298aa3472ba22feea921c0cf5d620ea67b97';
export const CONFIRMATIONS = 1n;
/** ULN302's "no optional DVNs" (0 would mean "use the endpoint's default"). */
const NIL_DVN_COUNT = 255;

export interface FerryLzChain {
  lz: LzChainDeployment;
  app: Address;
  escrow: Address;
}

/** LayerZero V2, FerryApp (owned by the deployer until locked) and FerryEscrow settled by the app. */
export async function deployFerryLzChain(
  deployer: LzChainClient,
  eid: number,
  settleGrace: number,
): Promise<FerryLzChain> {
  const lz = await deployLzChain({ deployer, eid, dvnKeys: DVN_KEYS, executorKey: EXECUTOR_KEY });
  const { address: app } = await deployLz(deployer, 'FerryApp', loadArtifact('FerryApp'), [
    lz.endpoint,
    deployer.account,
  ]);
  const { address: escrow } = await deployLz(deployer, 'FerryEscrow', loadArtifact('FerryEscrow'), [
    app,
    BigInt(settleGrace),
  ]);
  return { lz, app: getAddress(app), escrow: getAddress(escrow) };
}

/**
 * Wires `local`'s app to `remote`'s (both directions need a call): the endpoint's default path, the app's escrow,
 * route and peer, its own libraries and ULN/executor config pinned; then the delegate is cleared and ownership
 * renounced, so no key can change any of it.
 */
export async function wireAndLockFerryLzChain(
  deployer: LzChainClient,
  local: FerryLzChain,
  remote: FerryLzChain,
): Promise<void> {
  const appAbi = loadArtifact('FerryApp').abi;
  const endpointAbi = loadLzArtifact('EndpointV2').abi;
  const eid = remote.lz.eid;
  const call = (address: Address, abi: typeof appAbi, functionName: string, args: readonly unknown[]) =>
    writeLz(deployer, { address, abi, functionName, args });
  await wireLzPath(deployer, local.lz, remote.lz, CONFIRMATIONS);
  await call(local.app, appAbi, 'setEscrow', [local.escrow]);
  await call(local.app, appAbi, 'setRoute', [BigInt(remote.lz.chainId), eid]);
  await call(local.app, appAbi, 'setPeer', [eid, addressToBytes32(remote.app)]);
  const uln = { ...requiredDvnsConfig(local.lz.dvns, CONFIRMATIONS), optionalDVNCount: NIL_DVN_COUNT };
  await setLzOAppConfig(deployer, local.lz, local.app, eid, uln);
  await call(local.lz.endpoint, endpointAbi, 'setSendLibrary', [local.app, eid, local.lz.sendUln302]);
  await call(local.lz.endpoint, endpointAbi, 'setReceiveLibrary', [
    local.app,
    eid,
    local.lz.receiveUln302,
    0n,
  ]);
  await call(local.app, appAbi, 'setDelegate', ['0x0000000000000000000000000000000000000000']);
  await call(local.app, appAbi, 'renounceOwnership', []);
}
