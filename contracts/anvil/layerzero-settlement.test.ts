import { type Address, getAddress, type Hex, zeroAddress } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadArtifact } from '../../src/chains/contract-artifacts.ts';
import { loadLzArtifact, lzErrorAbi } from '../../src/chains/layerzero/lz-artifacts.ts';
import { deployLz, writeLz } from '../../src/chains/layerzero/lz-chain-client.ts';
import { requiredDvnsConfig } from '../../src/chains/layerzero/lz-oapp-config.ts';
import { addressToBytes32, lzOrigin } from '../../src/chains/layerzero/lz-packet.ts';
import { proveOptions } from '../../src/chains/settlement/prove-options.ts';
import { DEVNET_RELAYER_KEY } from '../../src/devnet/devnet.ts';
import {
  A,
  appAbi,
  approveOutput,
  attesterKey,
  B,
  balanceOf,
  commit,
  compactProof,
  deliver,
  deployerKey,
  depositedOrder,
  escrow,
  escrowAbi,
  events,
  execute,
  expectRevert,
  fill,
  fillAndProve,
  filler,
  fillerKey,
  hashOrder,
  makeOrder,
  offererKey,
  packetOf,
  prove,
  read,
  recipient,
  send,
  startSides,
  status,
  stopSides,
  strangerKey,
  tokenAbi,
  usdcA,
  usdtB,
  verifyBy,
} from '../../test/support/contract-sides.ts';
import { CONFIRMATIONS, DVN_KEYS, EXECUTOR_KEY, LZ_OWNER_KEY } from '../../test/support/ferry-lz-deploy.ts';

/**
 * Settlement through LayerZero V2 on two anvils (contract-sides.ts): LayerZero's own contracts, two DVNs with
 * separate keys, Ferry's apps wired to each other and locked. Every delivery step is taken by hand, so each
 * refusal is the chain's own.
 */
beforeAll(startSides, 180_000);
afterAll(stopSides);

describe('a fill proven through LayerZero settles the escrow', () => {
  it('fillAndProve → both DVNs verify → commit → lzReceive: Settled, and the filler is paid the input', async () => {
    const order = await depositedOrder();
    const orderHash = hashOrder(order);
    await approveOutput(order.outputAmount);
    const before = {
      fillerIn: await balanceOf(A, usdcA(), filler.address),
      escrow: await balanceOf(A, usdcA(), escrow()),
      recipient: await balanceOf(B, usdtB(), recipient),
    };
    const { receipt, packet } = await fillAndProve(order);
    expect(events(receipt.logs, 'Filled')[0]?.orderHash).toBe(orderHash);
    expect(events(receipt.logs, 'ProofSent')[0]).toEqual({
      guid: packet.guid,
      dstEid: A.ferry.lz.eid,
      orderHashes: [orderHash],
    });
    expect(packet.receiver).toBe(A.ferry.app);
    expect(await balanceOf(B, usdtB(), recipient)).toBe(before.recipient + order.outputAmount);
    expect(await status(orderHash)).toBe(1);

    const { receipt: delivered } = await deliver(packet);
    expect(events(delivered.logs, 'Settled')).toEqual([{ orderHash, filler: filler.address }]);
    expect(events(delivered.logs, 'ProofDelivered')).toEqual([
      { guid: packet.guid, srcEid: B.ferry.lz.eid, proofs: 1n },
    ]);
    expect(await status(orderHash)).toBe(2);
    expect(await balanceOf(A, usdcA(), filler.address)).toBe(before.fillerIn + order.inputAmount);
    expect(await balanceOf(A, usdcA(), escrow())).toBe(before.escrow - order.inputAmount);
  });

  it('one prove message for a batch of 10 recorded fills settles all 10', async () => {
    const orders: Awaited<ReturnType<typeof depositedOrder>>[] = [];
    for (let i = 0; i < 10; i++) orders.push(await depositedOrder());
    await approveOutput(orders.reduce((sum, o) => sum + o.outputAmount, 0n));
    for (const order of orders) await fill(order);
    const before = await balanceOf(A, usdcA(), filler.address);

    // Anyone may prove recorded fills (here a stranger, as Ferry's worker would).
    const { receipt, packet } = await prove(orders);
    expect(events(receipt.logs, 'ProofSent')[0]?.orderHashes).toEqual(orders.map((o) => hashOrder(o)));
    const { receipt: delivered } = await deliver(packet);
    expect(events(delivered.logs, 'Settled').map((e) => e.orderHash)).toEqual(
      orders.map((o) => hashOrder(o)),
    );
    expect(events(delivered.logs, 'ProofDelivered')[0]?.proofs).toBe(10n);
    for (const order of orders) expect(await status(hashOrder(order))).toBe(2);
    expect(await balanceOf(A, usdcA(), filler.address)).toBe(before + 10n * orders[0]!.inputAmount);
  });

  it('prove refuses unfilled orders, mixed batches and empty ones', async () => {
    const unfilled = await depositedOrder();
    await expectRevert(prove([unfilled]), 'NotFilled');
    const filled = await depositedOrder();
    await approveOutput(filled.outputAmount);
    await fill(filled);
    const othersOrder = await makeOrder({ filler: A.wallet(strangerKey).account.address });
    await expectRevert(prove([filled, othersOrder]), 'MixedBatch');
    await expectRevert(
      send(B, strangerKey, B.ferry.app, appAbi, 'prove', [[], escrow(), proveOptions(1)]),
      'EmptyProof',
    );
    expect(await status(hashOrder(unfilled))).toBe(1);
  });
});

describe('what the input chain refuses', () => {
  it('a message verified by one DVN of two is neither committed nor executed', async () => {
    const order = await depositedOrder();
    await approveOutput(order.outputAmount);
    const { packet } = await fillAndProve(order);
    await verifyBy(packet, [0]);
    await expectRevert(commit(packet), 'LZ_ULN_Verifying');
    await expectRevert(execute(packet), 'LZ_InvalidNonce');
    expect(await status(hashOrder(order))).toBe(1);
    // The second DVN completes the quorum.
    await verifyBy(packet, [1]);
    await commit(packet);
    await execute(packet);
    expect(await status(hashOrder(order))).toBe(2);
  });

  it('an altered payload, and a replay of a delivered message', async () => {
    const order = await depositedOrder();
    await approveOutput(order.outputAmount);
    const { packet } = await fillAndProve(order);
    await verifyBy(packet);
    await commit(packet);
    // The same message naming a stranger as filler: not what the DVNs verified.
    const altered = {
      ...packet,
      message: packet.message.replace(filler.address.slice(2).toLowerCase(), 'ee'.repeat(20)) as Hex,
    };
    expect(altered.message).not.toBe(packet.message);
    await expectRevert(execute(altered), 'LZ_PayloadHashNotFound');
    expect(await status(hashOrder(order))).toBe(1);
    const before = await balanceOf(A, usdcA(), filler.address);
    await execute(packet);
    expect(await balanceOf(A, usdcA(), filler.address)).toBe(before + order.inputAmount);

    await expectRevert(execute(packet), 'LZ_PayloadHashNotFound');
    // Even verified anew by both DVNs, the endpoint takes no nonce twice.
    await verifyBy(packet);
    await expectRevert(commit(packet), 'LZ_PathNotVerifiable');
    // A second proof of the same fill is a new message: delivered, it settles nothing (NotActive).
    const { packet: again } = await prove([order]);
    const { receipt } = await deliver(again);
    expect(events(receipt.logs, 'SettleSkipped')).toEqual([{ orderHash: hashOrder(order), reason: 0 }]);
    expect(await balanceOf(A, usdcA(), filler.address)).toBe(before + order.inputAmount);
  });

  it('a route names one chain per endpoint id: no zero eid, no eid taken by another chain', async () => {
    const deployer = B.lzClient(deployerKey);
    const { address: app } = await deployLz(deployer, 'route-check', loadArtifact('FerryApp'), [
      B.ferry.lz.endpoint,
      deployer.account,
    ]);
    const setRoute = (chainId: bigint, eid: number) =>
      writeLz(deployer, { address: app, abi: appAbi, functionName: 'setRoute', args: [chainId, eid] });
    await expectRevert(setRoute(7n, 0), 'InvalidRoute');
    await setRoute(7n, 70);
    // Pointing a second chain at eid 70 would send chain 7's proofs to the wrong app.
    await expectRevert(setRoute(8n, 70), 'InvalidRoute');
    // Moving chain 7 to another eid frees 70.
    await setRoute(7n, 71);
    await setRoute(8n, 70);
    expect(await read(B, app, appAbi, 'chainIdOf', [70])).toBe(8n);
    expect(await read(B, app, appAbi, 'chainIdOf', [71])).toBe(7n);
    expect(await read(B, app, appAbi, 'eidOf', [7n])).toBe(71);
  });

  it('a message from an app that is not the peer, and a direct call of lzReceive', async () => {
    const order = await depositedOrder();
    // Someone deploys their own FerryApp on B pointing at A's app, and "proves" a fill it recorded itself.
    const deployer = B.lzClient(deployerKey);
    const { address: outsider } = await deployLz(deployer, 'outsider', loadArtifact('FerryApp'), [
      B.ferry.lz.endpoint,
      deployer.account,
    ]);
    await writeLz(deployer, {
      address: outsider,
      abi: appAbi,
      functionName: 'setRoute',
      args: [BigInt(A.chain.id), A.ferry.lz.eid],
    });
    await writeLz(deployer, {
      address: outsider,
      abi: appAbi,
      functionName: 'setPeer',
      args: [A.ferry.lz.eid, addressToBytes32(A.ferry.app)],
    });
    await send(B, fillerKey, usdtB(), tokenAbi, 'approve', [outsider, order.outputAmount]);
    const receipt = await send(B, fillerKey, outsider, appAbi, 'fillAndProve', [
      order,
      escrow(),
      proveOptions(1),
    ]);
    const packet = packetOf(receipt);
    await verifyBy(packet);
    await expectRevert(commit(packet), 'LZ_PathNotInitializable');
    await expectRevert(
      send(A, strangerKey, A.ferry.app, appAbi, 'lzReceive', [
        { ...lzOrigin(packet), sender: addressToBytes32(B.ferry.app) },
        packet.guid,
        packet.message,
        zeroAddress,
        '0x',
      ]),
      'OnlyEndpoint',
    );
    expect(await status(hashOrder(order))).toBe(1);
  });
});

describe('no key Ferry holds can release a deposit without a fill', () => {
  // The keys `ferry start` and the devnet hold: deployer (owner of LayerZero's contracts), attester, relayer, and
  // the relay's DVN and executor keys.
  const keys: Record<string, Hex> = {
    deployer: deployerKey,
    attester: attesterKey,
    relayer: DEVNET_RELAYER_KEY,
    dvn1: DVN_KEYS[0]!,
    dvn2: DVN_KEYS[1]!,
    executor: EXECUTOR_KEY,
    layerZeroOwner: LZ_OWNER_KEY,
    offerer: offererKey,
  };

  it('settleFills is the app’s alone', async () => {
    const order = await depositedOrder();
    const proof = compactProof(order, order.openDeadline - 1n);
    const args = [order.outputChainId, filler.address, [proof]];
    for (const [who, key] of Object.entries(keys)) {
      await expect(send(A, key, escrow(), escrowAbi, 'settleFills', args), who).rejects.toThrow(/NotSettler/);
    }
    expect(await read(A, escrow(), escrowAbi, 'settler')).toBe(A.ferry.app);
    expect(await status(hashOrder(order))).toBe(1);
  });

  it('the apps have no owner and no endpoint delegate: peers, routes, escrow and verifiers are fixed', async () => {
    for (const side of [A, B]) {
      expect(await read(side, side.ferry.app, appAbi, 'owner')).toBe(zeroAddress);
      const endpointAbi = loadLzArtifact('EndpointV2').abi;
      expect(await read(side, side.ferry.lz.endpoint, endpointAbi, 'delegates', [side.ferry.app])).toBe(
        zeroAddress,
      );
    }
    await expectRevert(
      send(A, deployerKey, A.ferry.app, appAbi, 'setPeer', [
        B.ferry.lz.eid,
        addressToBytes32(A.ferry.lz.endpoint),
      ]),
      'OwnableUnauthorizedAccount',
    );
    await expectRevert(
      send(A, deployerKey, A.ferry.app, appAbi, 'setRoute', [1n, 1]),
      'OwnableUnauthorizedAccount',
    );
    await expectRevert(
      send(A, deployerKey, A.ferry.app, appAbi, 'setEscrow', [zeroAddress]),
      'OwnableUnauthorizedAccount',
    );
    await expectRevert(
      send(A, deployerKey, A.ferry.app, appAbi, 'setDelegate', [zeroAddress]),
      'OwnableUnauthorizedAccount',
    );
  });

  it('the endpoint owner’s defaults do not apply to the app: one DVN still cannot verify for it', async () => {
    const endpointAbi = loadLzArtifact('EndpointV2').abi;
    const [library, isDefault] = await read<[Address, boolean]>(
      A,
      A.ferry.lz.endpoint,
      endpointAbi,
      'getReceiveLibrary',
      [A.ferry.app, B.ferry.lz.eid],
    );
    expect([getAddress(library), isDefault]).toEqual([getAddress(A.ferry.lz.receiveUln302), false]);
    // LayerZero's owner (of A's ReceiveUln302) makes one DVN enough by default: A's app keeps its own config.
    const oneDvn = requiredDvnsConfig([A.ferry.lz.dvns[0]!], CONFIRMATIONS);
    await writeLz(A.lzClient(LZ_OWNER_KEY), {
      address: A.ferry.lz.receiveUln302,
      abi: loadLzArtifact('ReceiveUln302').abi,
      functionName: 'setDefaultUlnConfigs',
      args: [[{ eid: B.ferry.lz.eid, config: oneDvn }]],
    });
    const order = await depositedOrder();
    await approveOutput(order.outputAmount);
    const { packet } = await fillAndProve(order);
    await verifyBy(packet, [0]);
    await expectRevert(commit(packet), 'LZ_ULN_Verifying');
    // Nor can the deployer or LayerZero's owner set the app's config itself: neither is the app's delegate.
    await expectRevert(
      send(A, deployerKey, A.ferry.lz.endpoint, [...endpointAbi, ...lzErrorAbi()], 'setConfig', [
        A.ferry.app,
        A.ferry.lz.receiveUln302,
        [],
      ]),
      'LZ_Unauthorized',
    );
    await expectRevert(
      send(A, LZ_OWNER_KEY, A.ferry.lz.endpoint, [...endpointAbi, ...lzErrorAbi()], 'setConfig', [
        A.ferry.app,
        A.ferry.lz.receiveUln302,
        [],
      ]),
      'LZ_Unauthorized',
    );
    await verifyBy(packet, [1]);
    await commit(packet);
    await execute(packet);
    expect(await status(hashOrder(order))).toBe(2);
  });

  it('a proof needs a recorded fill: prove of an unfilled order reverts NotFilled', async () => {
    const order = await depositedOrder();
    for (const key of [deployerKey, fillerKey, strangerKey])
      await expectRevert(prove([order], key), 'NotFilled');
    expect(await read(B, B.ferry.app, appAbi, 'fillTimes', [hashOrder(order)])).toBe(0n);
    expect(await status(hashOrder(order))).toBe(1);
  });
});
