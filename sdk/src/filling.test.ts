import { decodeAbiParameters, parseAbiParameters } from 'viem';
import { describe, expect, it } from 'vitest';
import { loadArtifact } from '../../src/chains/contract-artifacts.ts';
import { proveOptions as workerProveOptions } from '../../src/chains/settlement/prove-options.ts';
import { buildOrderTypedData, ORDER_TYPE, type OrderTerms } from '../../src/domain/order-typed-data.ts';
import {
  erc7683Abi,
  ferryFillAbi,
  ORDER_DATA_TYPE,
  onchainOrder,
  proveOptions,
  signedOrder,
} from './filling.ts';

const terms: OrderTerms = {
  offerer: '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC',
  recipient: '0x90F79bf6EB2c4f870365E785982E1f101E93b906',
  inputToken: '0x5FbDB2315678afecb367f032d93F642f64180aa3',
  outputToken: '0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512',
  inputAmount: 2_000_000n,
  outputAmount: 1_995_000n,
  inputChainId: 900001n,
  outputChainId: 900002n,
  filler: '0x15d34AAf54267DB7D7c367839AAf71A00a2C6A65',
  nonce: 42n,
  openDeadline: 1_800_000_600n,
  fillDeadline: 1_800_002_400n,
  protocolFee: 2_000n,
  exclusivityDeadline: 1_800_000_120n,
};
const ESCROW = '0xCf7Ed3AccA5a467e9e704C703E8D87F634fB0Fc9';

describe('the SDK’s filling helpers agree with the contracts and with Ferry', () => {
  it('reads the signed order of typed data as the contracts take it, with its escrow', () => {
    const { order, escrow } = signedOrder(buildOrderTypedData(terms, ESCROW) as never);
    expect(order).toEqual(terms);
    expect(escrow).toBe(ESCROW);
  });

  it('names the escrow’s ORDER_TYPEHASH as the ERC-7683 orderDataType, and encodes orderData the escrow decodes', () => {
    const escrowAbi = loadArtifact('FerryEscrow').abi as readonly { type: string; name?: string }[];
    expect(escrowAbi.some((item) => item.name === 'ORDER_TYPEHASH')).toBe(true);
    expect(ORDER_TYPE.map((f) => f.name)).toEqual(Object.keys(terms));
    const open = onchainOrder(terms);
    expect(open.orderDataType).toBe(ORDER_DATA_TYPE);
    expect(open.fillDeadline).toBe(Number(terms.fillDeadline));
    const [decoded] = decodeAbiParameters(
      parseAbiParameters(`(${ORDER_TYPE.map((f) => `${f.type} ${f.name}`).join(', ')})`),
      open.orderData,
    );
    expect(decoded).toEqual(terms);
    // 14 static words: exactly what the escrow's open() reads from orderData.
    expect((open.orderData.length - 2) / 2).toBe(14 * 32);
  });

  it('asks LayerZero for the gas Ferry’s worker asks', () => {
    for (const proofs of [1, 2, 10]) expect(proveOptions(proofs)).toBe(workerProveOptions(proofs));
  });

  it('speaks the contracts’ ABI: every function it calls exists in the compiled artifacts with the same inputs', () => {
    const signature = (item: { name?: string; inputs?: readonly { type: string }[] }) =>
      `${item.name}(${(item.inputs ?? []).map((i) => i.type).join(',')})`;
    const compiled = new Set(
      [...loadArtifact('FerryApp').abi, ...loadArtifact('FerryEscrow').abi]
        .filter((item) => item.type === 'function' || item.type === 'event')
        .map((item) => signature(item as never)),
    );
    for (const item of [...ferryFillAbi, ...erc7683Abi].filter(
      (i) => i.type === 'function' || i.type === 'event',
    ))
      expect(compiled, signature(item as never)).toContain(signature(item as never));
  });
});
