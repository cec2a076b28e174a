import { type Address, getAddress, type Hex, type PublicClient, zeroAddress } from 'viem';
import type { Chain, ChainRegistry } from '../chains/chain-registry.ts';
import { loadArtifact } from '../chains/contract-artifacts.ts';
import { loadLzArtifact } from '../chains/layerzero/lz-artifacts.ts';
import { DEFAULT_LZ_RPC_TIMEOUT_MS } from '../chains/layerzero/lz-chain-client.ts';
import { LZ_DEVNET_MAX_MESSAGE_SIZE } from '../chains/layerzero/lz-oapp-config.ts';
import { addressToBytes32 } from '../chains/layerzero/lz-packet.ts';
import { publicClientForUrl } from '../chains/viem-client.ts';
import { appLibrary, type FerryLzChain, ferryLzChain, pinnedPathConfig } from './ferry-wire.ts';

type Read = (
  address: Address,
  abi: 'app' | 'escrow' | 'endpoint' | 'send' | 'receive',
  fn: string,
  args?: readonly unknown[],
) => Promise<unknown>;

const ABIS = {
  app: () => loadArtifact('FerryApp').abi,
  escrow: () => loadArtifact('FerryEscrow').abi,
  endpoint: () => loadLzArtifact('EndpointV2').abi,
  send: () => loadLzArtifact('SendUln302').abi,
  receive: () => loadLzArtifact('ReceiveUln302').abi,
};

/**
 * Reads, on `chain`, everything that must hold once Ferry's app is wired and locked, and answers what does not
 * (empty: locked as the registry says). The app has no owner and no endpoint delegate (so no key can change its
 * peers, escrow or config); its escrow is the registry's and names the app as its settler; and for every other
 * LayerZero chain of `registry`, the app routes that chain id to its eid, has that chain's app as its peer, and
 * has its send and receive libraries, executor and ULN config pinned on the endpoint to the registry's values
 * (not following the endpoint owner's defaults).
 */
export async function checkFerryAppLocked(
  chain: Chain,
  registry: ChainRegistry,
  options: { rpcTimeoutMs?: number } = {},
): Promise<string[]> {
  if (chain.settlement.method !== 'layerzero')
    return [`${chain.name} settles through the attester: no app to lock`];
  const local = ferryLzChain(chain);
  const client = publicClientForUrl(chain.rpcUrl, options.rpcTimeoutMs ?? DEFAULT_LZ_RPC_TIMEOUT_MS);
  const read: Read = (address, abi, functionName, args = []) =>
    client.readContract({ address, abi: ABIS[abi](), functionName, args } as never);
  const problems: string[] = [];
  const expect = (what: string, actual: unknown, wanted: unknown) => {
    if (normalize(actual) !== normalize(wanted))
      problems.push(`${chain.name}: ${what} is ${normalize(actual)}, expected ${normalize(wanted)}`);
  };

  const { app, lz } = local;
  expect('the app owner', await read(app, 'app', 'owner'), zeroAddress);
  expect('the app endpoint delegate', await read(lz.endpoint, 'endpoint', 'delegates', [app]), zeroAddress);
  expect('the app endpoint', await read(app, 'app', 'endpoint'), lz.endpoint);
  expect('the app escrow', await read(app, 'app', 'escrow'), local.escrow);
  expect('the escrow settler', await read(local.escrow, 'escrow', 'settler'), app);
  const remotes = registry.chains
    .filter((c) => c.name !== chain.name && c.settlement.method === 'layerzero')
    .map(ferryLzChain);
  for (const remote of remotes)
    problems.push(...(await checkPath(client as PublicClient, read, local, remote)));
  return problems;
}

async function checkPath(
  client: PublicClient,
  read: Read,
  local: FerryLzChain,
  remote: FerryLzChain,
): Promise<string[]> {
  const problems: string[] = [];
  const expect = (what: string, actual: unknown, wanted: unknown) => {
    if (normalize(actual) !== normalize(wanted))
      problems.push(
        `${local.name} → ${remote.name}: ${what} is ${normalize(actual)}, expected ${normalize(wanted)}`,
      );
  };
  const { app, lz } = local;
  const eid = remote.lz.eid;
  expect('the route', await read(app, 'app', 'eidOf', [BigInt(remote.chainId)]), eid);
  // The settling side maps a message's source back to its output chain: the escrow checks fills against it.
  expect('the source chain', await read(app, 'app', 'chainIdOf', [eid]), BigInt(remote.chainId));
  expect('the peer', await read(app, 'app', 'peers', [eid]), addressToBytes32(remote.app));
  for (const side of ['send', 'receive'] as const) {
    const wanted = side === 'send' ? lz.sendLibrary : lz.receiveLibrary;
    expect(`the ${side} library`, await appLibrary(client, lz.endpoint, app, eid, side), [wanted, false]);
  }
  const pinned = pinnedPathConfig(local, remote);
  expect(
    'the send ULN config',
    await read(lz.sendLibrary, 'send', 'getAppUlnConfig', [app, eid]),
    pinned.send,
  );
  expect('the executor config', await read(lz.sendLibrary, 'send', 'executorConfigs', [app, eid]), [
    LZ_DEVNET_MAX_MESSAGE_SIZE,
    lz.executor,
  ]);
  expect(
    'the receive ULN config',
    await read(lz.receiveLibrary, 'receive', 'getAppUlnConfig', [app, eid]),
    pinned.receive,
  );
  return problems;
}

/** One comparable text for addresses (any case), bigints, numbers, tuples and structs. */
function normalize(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => {
    if (typeof v === 'bigint') return v.toString();
    if (typeof v === 'number') return String(v);
    if (typeof v === 'string' && /^0x[0-9a-fA-F]*$/.test(v))
      return v.length === 42 ? getAddress(v as Hex) : v.toLowerCase();
    return v;
  });
}
