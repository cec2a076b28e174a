import type { Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { ChainError } from '../../chains/chain-error.ts';
import { loadLzArtifact, ZERO_FEE_LIB_INIT_CODE } from '../../chains/layerzero/lz-artifacts.ts';
import { deployLz, type LzChainClient, writeLz } from '../../chains/layerzero/lz-chain-client.ts';
import type { LzChainDeployment, LzDvnDeployment } from '../../chains/layerzero/lz-chain-deployment.ts';
import { LZ_DEVNET_MAX_MESSAGE_SIZE, requiredDvnsConfig } from '../../chains/layerzero/lz-oapp-config.ts';

export interface DeployLzChainOptions {
  /** Signs every deployment and owns the endpoint and both libraries. */
  deployer: LzChainClient;
  eid: number;
  /** One key per DVN: its signer and submitter. Keys must differ, so no single key can verify alone. */
  dvnKeys: readonly Hex[];
  /** The off-chain executor's key, made an admin of the Executor contract. */
  executorKey: Hex;
}

/**
 * Deploys LayerZero V2 on one chain from the packaged artifacts: EndpointV2 with its eid, SendUln302 and
 * ReceiveUln302 (registered with the endpoint), one DVN per key and the Executor, both pointed at the zero-fee
 * library. Paths to other chains are wired afterwards by wireLzPath.
 */
export async function deployLzChain(options: DeployLzChainOptions): Promise<LzChainDeployment> {
  const { deployer, eid, dvnKeys } = options;
  const signers = dvnKeys.map((key) => privateKeyToAccount(key).address);
  if (signers.length < 2 || new Set(signers).size !== signers.length) {
    throw new ChainError('LayerZero devnets need at least two DVNs with distinct keys');
  }
  const executorAdmin = privateKeyToAccount(options.executorKey).address;
  const owner = deployer.account;

  const endpointDeployed = await deployLz(deployer, 'EndpointV2', loadLzArtifact('EndpointV2'), [eid, owner]);
  const endpoint = endpointDeployed.address;
  // No treasury is set, so its gas limit and fee cap are never used.
  const { address: sendUln302 } = await deployLz(deployer, 'SendUln302', loadLzArtifact('SendUln302'), [
    endpoint,
    0n,
    0n,
  ]);
  const { address: receiveUln302 } = await deployLz(
    deployer,
    'ReceiveUln302',
    loadLzArtifact('ReceiveUln302'),
    [endpoint],
  );
  const { address: workerFeeLib } = await deployLz(
    deployer,
    'zero-fee worker library',
    { abi: [], bytecode: ZERO_FEE_LIB_INIT_CODE },
    [],
  );

  const endpointAbi = loadLzArtifact('EndpointV2').abi;
  for (const library of [sendUln302, receiveUln302]) {
    await writeLz(deployer, {
      address: endpoint,
      abi: endpointAbi,
      functionName: 'registerLibrary',
      args: [library],
    });
  }

  const dvnArtifact = loadLzArtifact('DVN');
  const dvns: LzDvnDeployment[] = [];
  for (const [index, signer] of signers.entries()) {
    const vid = index + 1;
    // The send library needs MESSAGE_LIB_ROLE to assign jobs; no price feed: the fee library never reads it.
    const { address } = await deployLz(deployer, `DVN ${vid}`, dvnArtifact, [
      eid,
      vid,
      [sendUln302],
      '0x0000000000000000000000000000000000000000',
      [signer],
      1n,
      [owner, signer],
    ]);
    await writeLz(deployer, {
      address,
      abi: dvnArtifact.abi,
      functionName: 'setWorkerFeeLib',
      args: [workerFeeLib],
    });
    dvns.push({ address, vid, signer });
  }

  // Executor is written for hardhat-deploy proxies; deployed bare, its `proxied` guard lets initialize run once.
  const executorArtifact = loadLzArtifact('Executor');
  const { address: executor } = await deployLz(deployer, 'Executor', executorArtifact, []);
  await writeLz(deployer, {
    address: executor,
    abi: executorArtifact.abi,
    functionName: 'initialize',
    args: [
      endpoint,
      '0x0000000000000000000000000000000000000000',
      [sendUln302],
      '0x0000000000000000000000000000000000000000',
      owner,
      [owner, executorAdmin],
    ],
  });
  await writeLz(deployer, {
    address: executor,
    abi: executorArtifact.abi,
    functionName: 'setWorkerFeeLib',
    args: [workerFeeLib],
  });

  return {
    chainId: deployer.chainId,
    eid,
    endpoint,
    sendUln302,
    receiveUln302,
    dvns,
    executor,
    workerFeeLib,
    startBlock: endpointDeployed.receipt.blockNumber,
  };
}

/**
 * Wires `local` to send to and receive from `remote` through the ULN302 libraries, as the endpoint's defaults:
 * every DVN of the chain is required (none optional), after `confirmations` blocks. Call it on both chains.
 */
export async function wireLzPath(
  deployer: LzChainClient,
  local: LzChainDeployment,
  remote: Pick<LzChainDeployment, 'eid'>,
  confirmations: bigint,
): Promise<void> {
  const ulnConfig = requiredDvnsConfig(local.dvns, confirmations);
  const sendAbi = loadLzArtifact('SendUln302').abi;
  const receiveAbi = loadLzArtifact('ReceiveUln302').abi;
  const endpointAbi = loadLzArtifact('EndpointV2').abi;
  const eid = remote.eid;

  await writeLz(deployer, {
    address: local.sendUln302,
    abi: sendAbi,
    functionName: 'setDefaultUlnConfigs',
    args: [[{ eid, config: ulnConfig }]],
  });
  await writeLz(deployer, {
    address: local.sendUln302,
    abi: sendAbi,
    functionName: 'setDefaultExecutorConfigs',
    args: [[{ eid, config: { maxMessageSize: LZ_DEVNET_MAX_MESSAGE_SIZE, executor: local.executor } }]],
  });
  await writeLz(deployer, {
    address: local.receiveUln302,
    abi: receiveAbi,
    functionName: 'setDefaultUlnConfigs',
    args: [[{ eid, config: ulnConfig }]],
  });
  // The endpoint accepts a library as default only once the library supports the eid (configured above).
  await writeLz(deployer, {
    address: local.endpoint,
    abi: endpointAbi,
    functionName: 'setDefaultSendLibrary',
    args: [eid, local.sendUln302],
  });
  await writeLz(deployer, {
    address: local.endpoint,
    abi: endpointAbi,
    functionName: 'setDefaultReceiveLibrary',
    args: [eid, local.receiveUln302, 0n],
  });
}
