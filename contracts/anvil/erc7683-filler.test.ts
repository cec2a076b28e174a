import {
  type Address,
  encodeAbiParameters,
  erc20Abi,
  type Hex,
  padHex,
  parseAbi,
  parseEventLogs,
  sliceHex,
  type TransactionReceipt,
  zeroAddress,
} from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lzReceiveOptions } from '../../src/chains/layerzero/lz-packet.ts';
import { ORDER_TYPE, type OrderTerms } from '../../src/domain/order-typed-data.ts';
import {
  A,
  appAbi,
  approveAndDeposit,
  B,
  balanceOf,
  deliver,
  deployerKey,
  escrow,
  events,
  expectRevert,
  filler,
  fillerKey,
  hashOrder,
  makeOrder,
  offerer,
  offererKey,
  packetOf,
  prove,
  quoteProve,
  read,
  send,
  sign,
  startSides,
  status,
  stopSides,
  stranger,
  strangerKey,
  tokenAbi,
  usdcA,
  usdtB,
} from '../../test/support/contract-sides.ts';

/**
 * Ferry through ERC-7683 alone (contract-sides.ts: LayerZero's own contracts on two anvils, Ferry's apps wired and
 * locked). The filler here knows only the standard: it reads the escrow's Open event, approves maxSpent to the fill
 * instruction's destination settler and calls fill(orderId, originData, fillerData), then is paid on the input
 * chain. Offerers open their own orders with open() or have them opened with openFor() and their signature.
 */
const ERC7683 = parseAbi([
  'struct Output { bytes32 token; uint256 amount; bytes32 recipient; uint256 chainId; }',
  'struct FillInstruction { uint256 destinationChainId; bytes32 destinationSettler; bytes originData; }',
  'struct ResolvedCrossChainOrder { address user; uint256 originChainId; uint32 openDeadline; uint32 fillDeadline; bytes32 orderId; Output[] maxSpent; Output[] minReceived; FillInstruction[] fillInstructions; }',
  'struct OnchainCrossChainOrder { uint32 fillDeadline; bytes32 orderDataType; bytes orderData; }',
  'struct GaslessCrossChainOrder { address originSettler; address user; uint256 nonce; uint256 originChainId; uint32 openDeadline; uint32 fillDeadline; bytes32 orderDataType; bytes orderData; }',
  'event Open(bytes32 indexed orderId, ResolvedCrossChainOrder resolvedOrder)',
  'function open(OnchainCrossChainOrder order) payable',
  'function openFor(GaslessCrossChainOrder order, bytes signature, bytes originFillerData) payable',
  'function resolve(OnchainCrossChainOrder order) view returns (ResolvedCrossChainOrder)',
  'function resolveFor(GaslessCrossChainOrder order, bytes originFillerData) view returns (ResolvedCrossChainOrder)',
  'function fill(bytes32 orderId, bytes originData, bytes fillerData) payable',
]);
// Ferry's own additions, outside the standard: the orderDataType its orders carry, and who settles where.
const ORDER_DATA_TYPE = parseAbi(['function ORDER_TYPEHASH() view returns (bytes32)']);
const SETTLER_OF = parseAbi(['function destinationSettlerOf(uint256 chainId) view returns (bytes32)']);

type Resolved = {
  user: Address;
  originChainId: bigint;
  openDeadline: number;
  fillDeadline: number;
  orderId: Hex;
  maxSpent: readonly { token: Hex; amount: bigint; recipient: Hex; chainId: bigint }[];
  minReceived: readonly { token: Hex; amount: bigint; recipient: Hex; chainId: bigint }[];
  fillInstructions: readonly { destinationChainId: bigint; destinationSettler: Hex; originData: Hex }[];
};

const b32 = (address: Address) => padHex(address, { size: 32 }).toLowerCase() as Hex;
const addressOf = (word: Hex) => sliceHex(word, 12) as Address;

/** The orders a receipt opened, as the standard's Open event states them. */
function opened(receipt: TransactionReceipt): Resolved[] {
  return parseEventLogs({ abi: ERC7683, eventName: 'Open', logs: receipt.logs }).map(
    (log) => log.args.resolvedOrder as Resolved,
  );
}

/**
 * What a standard ERC-7683 filler does with an Open event (on B, with `key`): approve each maxSpent token to the
 * fill instruction's destination settler, then fill(orderId, originData, fillerData) paying `value`.
 */
async function fill7683(resolved: Resolved, key: Hex, fillerData: Hex = '0x', value = 0n) {
  const [instruction] = resolved.fillInstructions;
  if (!instruction) throw new Error('no fill instruction');
  expect(instruction.destinationChainId).toBe(BigInt(B.chain.id));
  const settler = addressOf(instruction.destinationSettler);
  for (const spent of resolved.maxSpent) {
    await send(B, key, addressOf(spent.token), erc20Abi, 'approve', [settler, spent.amount]);
  }
  const args = [resolved.orderId, instruction.originData, fillerData];
  return send(B, key, settler, ERC7683, 'fill', args, value);
}

/** Ferry's Order as ERC-7683 orderData: its ABI encoding. */
const orderData = (order: OrderTerms) =>
  encodeAbiParameters([{ type: 'tuple', components: ORDER_TYPE }], [order]);

const orderDataType = () => read<Hex>(A, escrow(), ORDER_DATA_TYPE, 'ORDER_TYPEHASH');

/** What the escrow documents an order resolves to (FerryEscrow._resolve). */
function expectedResolution(order: OrderTerms): Resolved {
  return {
    user: order.offerer,
    originChainId: order.inputChainId,
    openDeadline: Number(order.openDeadline),
    fillDeadline: Number(order.fillDeadline),
    orderId: hashOrder(order),
    maxSpent: [
      {
        token: b32(order.outputToken),
        amount: order.outputAmount,
        recipient: b32(order.recipient),
        chainId: order.outputChainId,
      },
    ],
    minReceived: [
      {
        token: b32(order.inputToken),
        amount: order.inputAmount - order.protocolFee,
        recipient: b32(order.filler),
        chainId: order.inputChainId,
      },
    ],
    fillInstructions: [
      {
        destinationChainId: order.outputChainId,
        destinationSettler: b32(B.ferry.app),
        originData: encodeAbiParameters(
          [{ type: 'tuple', components: ORDER_TYPE }, { type: 'address' }],
          [order, escrow()],
        ),
      },
    ],
  };
}

/** Lower-cases the bytes32 words viem hands back, so a resolution compares with expectedResolution. */
function normalized(resolved: Resolved): Resolved {
  const output = (o: Resolved['maxSpent'][number]) => ({
    ...o,
    token: o.token.toLowerCase() as Hex,
    recipient: o.recipient.toLowerCase() as Hex,
  });
  return {
    ...resolved,
    maxSpent: resolved.maxSpent.map(output),
    minReceived: resolved.minReceived.map(output),
    fillInstructions: resolved.fillInstructions.map((f) => ({
      ...f,
      destinationSettler: f.destinationSettler.toLowerCase() as Hex,
    })),
  };
}

/** The standard's calls with Ferry's errors beside them, for the test's own assertions on reverts. */
const WITH_ERRORS = [...ERC7683, ...appAbi.filter((x) => x.type === 'error')];
const OPTIONS = lzReceiveOptions(200_000n);

beforeAll(async () => {
  await startSides();
  // A second filler, funded on the output chain.
  await send(B, deployerKey, usdtB(), tokenAbi, 'mint', [stranger.address, 1_000_000_000n]);
}, 180_000);
afterAll(stopSides);

/** Delivers `packet` to A: the escrow settles `resolved` to `paid`, who receives exactly minReceived. */
async function expectPaid(packet: Parameters<typeof deliver>[0], resolved: Resolved, paid: Address) {
  const [received] = resolved.minReceived;
  if (!received) throw new Error('no minReceived');
  const token = addressOf(received.token);
  const before = await balanceOf(A, token, paid);
  const { receipt } = await deliver(packet);
  expect(events(receipt.logs, 'Settled')).toEqual([{ orderHash: resolved.orderId, filler: paid }]);
  expect(await balanceOf(A, token, paid)).toBe(before + received.amount);
  expect(await status(resolved.orderId)).toBe(2);
}

describe('a filler that knows only ERC-7683', () => {
  it('reads Open from a deposit, fills with LayerZero options as fillerData, and is paid on the input chain', async () => {
    const order = await makeOrder();
    const deposit = await approveAndDeposit(order);
    const [resolved] = opened(deposit);
    if (!resolved) throw new Error('no Open event');
    expect(normalized(resolved)).toEqual(expectedResolution(order));
    const [open] = parseEventLogs({ abi: ERC7683, eventName: 'Open', logs: deposit.logs });
    expect(open?.args.orderId).toBe(resolved.orderId);

    // The one Ferry call: the messaging fee of the proof the fill sends.
    const fee = await quoteProve([order], OPTIONS);
    const recipientBefore = await balanceOf(B, usdtB(), order.recipient);
    const receipt = await fill7683(resolved, fillerKey, OPTIONS, fee);
    expect(await balanceOf(B, usdtB(), order.recipient)).toBe(recipientBefore + resolved.maxSpent[0]!.amount);
    expect(events(receipt.logs, 'Filled')[0]).toMatchObject({
      orderHash: resolved.orderId,
      filler: filler.address,
    });
    await expectPaid(packetOf(receipt), resolved, filler.address);
  });

  it('takes an open order with empty fillerData (fill only); the worker side proves, and it is paid', async () => {
    const order = await makeOrder({ filler: zeroAddress });
    const [resolved] = opened(await approveAndDeposit(order));
    if (!resolved) throw new Error('no Open event');
    expect(resolved.minReceived[0]?.recipient).toBe(b32(zeroAddress));
    const [instruction] = resolved.fillInstructions;
    const settler = addressOf(instruction!.destinationSettler);
    // Native value with nothing to prove, and originData that is not the orderId's, are refused.
    await send(B, strangerKey, usdtB(), erc20Abi, 'approve', [settler, order.outputAmount]);
    const call = (orderId: Hex, value: bigint) =>
      send(B, strangerKey, settler, WITH_ERRORS, 'fill', [orderId, instruction!.originData, '0x'], value);
    await expectRevert(call(resolved.orderId, 1n), 'NoValue');
    await expectRevert(call(hashOrder(await makeOrder()), 0n), 'WrongOrderId');

    await fill7683(resolved, strangerKey);
    await expectPaid((await prove([order], deployerKey)).packet, resolved, stranger.address);
  });
});

describe('open(): an offerer opens its own order, no signature', () => {
  const onchain = async (order: OrderTerms) => ({
    fillDeadline: Number(order.fillDeadline),
    orderDataType: await orderDataType(),
    orderData: orderData(order),
  });

  it('resolves and opens as the escrow documents; a filler completes it', async () => {
    expect(await read(A, A.ferry.app, SETTLER_OF, 'destinationSettlerOf', [BigInt(B.chain.id)])).toBe(
      b32(B.ferry.app),
    );
    expect(await read(A, A.ferry.app, SETTLER_OF, 'destinationSettlerOf', [910_003n])).toBe(b32(zeroAddress));
    const order = await makeOrder();
    const terms = await onchain(order);
    const resolved = await read<Resolved>(A, escrow(), ERC7683, 'resolve', [terms]);
    expect(normalized(resolved)).toEqual(expectedResolution(order));

    await send(A, offererKey, usdcA(), erc20Abi, 'approve', [escrow(), order.inputAmount]);
    // Only the offerer opens its order; the order data must be Ferry's Order, with the same fill deadline.
    await expectRevert(send(A, strangerKey, escrow(), WITH_ERRORS, 'open', [terms]), 'WrongSigner');
    const wrongType = { ...terms, orderDataType: b32(offerer.address) };
    await expectRevert(send(A, offererKey, escrow(), WITH_ERRORS, 'open', [wrongType]), 'WrongOrderData');
    const wrongDeadline = { ...terms, fillDeadline: terms.fillDeadline - 1 };
    await expectRevert(send(A, offererKey, escrow(), WITH_ERRORS, 'open', [wrongDeadline]), 'WrongOrderData');
    await expectRevert(send(A, offererKey, escrow(), WITH_ERRORS, 'open', [terms], 1n), 'NoValue');
    const trailing = { ...terms, orderData: `${terms.orderData}${'00'.repeat(32)}` as Hex };
    await expectRevert(
      send(A, offererKey, escrow(), WITH_ERRORS, 'open', [trailing]),
      'InvalidOrderEncoding',
    );

    const escrowBefore = await balanceOf(A, usdcA(), escrow());
    const receipt = await send(A, offererKey, escrow(), ERC7683, 'open', [terms]);
    expect(opened(receipt)).toEqual([resolved]);
    expect(await status(resolved.orderId)).toBe(1);
    expect(await balanceOf(A, usdcA(), escrow())).toBe(escrowBefore + order.inputAmount);

    const fill = await fill7683(resolved, fillerKey, OPTIONS, await quoteProve([order], OPTIONS));
    await expectPaid(packetOf(fill), resolved, filler.address);
  });

  it('an escrow whose settler names no destination (the attester route) resolves with a zero settler', async () => {
    const order = await makeOrder();
    const terms = await onchain(order);
    const resolved = await read<Resolved>(A, A.attested.escrow, ERC7683, 'resolve', [terms]);
    expect(resolved.fillInstructions.map((f) => f.destinationSettler)).toEqual([b32(zeroAddress)]);
    expect(resolved.orderId).toBe(hashOrder(order, A.attested.escrow));
  });
});

describe('openFor(): a signed order, submitted by anyone', () => {
  const gasless = async (order: OrderTerms) => ({
    originSettler: escrow(),
    user: order.offerer,
    nonce: order.nonce,
    originChainId: order.inputChainId,
    openDeadline: Number(order.openDeadline),
    fillDeadline: Number(order.fillDeadline),
    orderDataType: await orderDataType(),
    orderData: orderData(order),
  });

  it('deposits with the offerer’s EIP-712 signature over Ferry’s Order, and only with it', async () => {
    const order = await makeOrder();
    const terms = await gasless(order);
    const resolved = await read<Resolved>(A, escrow(), ERC7683, 'resolveFor', [terms, '0x']);
    expect(normalized(resolved)).toEqual(expectedResolution(order));
    await send(A, offererKey, usdcA(), erc20Abi, 'approve', [escrow(), order.inputAmount]);
    const openFor = (t: typeof terms, signature: Hex) =>
      send(A, deployerKey, escrow(), WITH_ERRORS, 'openFor', [t, signature, '0x']);

    await expectRevert(openFor(terms, await sign(order, strangerKey)), 'WrongSigner');
    // The standard's fields must agree with the Ferry order they carry.
    await expectRevert(openFor({ ...terms, nonce: order.nonce + 1n }, await sign(order)), 'WrongOrderData');
    await expectRevert(
      openFor({ ...terms, originSettler: A.ferry.app }, await sign(order)),
      'WrongOrderData',
    );
    expect(await status(resolved.orderId)).toBe(0);

    const receipt = await openFor(terms, await sign(order));
    expect(opened(receipt)).toEqual([resolved]);
    expect(events(receipt.logs, 'Deposited')[0]).toMatchObject({
      orderHash: resolved.orderId,
      offerer: offerer.address,
    });
    expect(await status(resolved.orderId)).toBe(1);
    await expectRevert(openFor(terms, await sign(order)), 'OrderExists');
  });
});
