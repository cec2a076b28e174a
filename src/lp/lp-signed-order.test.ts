import { describe, expect, it } from 'vitest';
import { buildOrderTypedData, hashOrderTypedData, type OrderTerms } from '../domain/order-typed-data.ts';
import type { ChainInfo, OrderView } from './ferry-api.ts';
import { settlementMethodOf, signedOrderOf } from './lp-signed-order.ts';

const ESCROW = '0x1111111111111111111111111111111111111111';
const APP_A = '0x2222222222222222222222222222222222222222';
const MESSENGER_A = '0x3333333333333333333333333333333333333333';
const terms: OrderTerms = {
  offerer: '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC',
  recipient: '0x000000000000000000000000000000000000FE11',
  inputToken: '0x0B306BF915C4d645ff596e518fAf3F9669b97016',
  outputToken: '0x959922bE3CAee4b8Cd9a407cc3ac1C251C2007B1',
  inputAmount: 100_000_000n,
  outputAmount: 99_700_000n,
  inputChainId: 900001n,
  outputChainId: 900002n,
  filler: '0x90F79bf6EB2c4f870365E785982E1f101E93b906',
  nonce: 7n,
  openDeadline: 1_800_000_000n,
  fillDeadline: 1_800_003_600n,
  protocolFee: 25_000n,
  exclusivityDeadline: 1_800_000_060n,
};
const chain = (name: string, chainId: number, fill: string, messenger: string | null) =>
  ({
    name,
    chainId,
    escrow: ESCROW,
    fill,
    contracts: { escrow: ESCROW, fill, messenger },
  }) as unknown as ChainInfo;
const input = chain('devnet-a', 900001, APP_A, MESSENGER_A);
const output = chain('devnet-b', 900002, '0x4444444444444444444444444444444444444444', null);

function view(signed: OrderTerms = terms, shown: Partial<OrderView['details']> = {}): OrderView {
  const typedData = buildOrderTypedData(signed, ESCROW);
  return {
    blockchainOrderId: hashOrderTypedData(typedData),
    quote: { typedData },
    details: {
      inputToken: terms.inputToken,
      outputToken: terms.outputToken,
      inputAmount: terms.inputAmount.toString(),
      outputAmount: terms.outputAmount.toString(),
      recipient: terms.recipient,
      filler: terms.filler,
      fillDeadline: terms.fillDeadline.toString(),
      protocolFee: terms.protocolFee.toString(),
      ...shown,
    },
  } as unknown as OrderView;
}

describe('the signed order the bot fills', () => {
  it('is the typed data of the view, when it hashes to the order id and matches the view’s terms', () => {
    const signed = signedOrderOf(view(), input, output);
    expect(signed).toMatchObject({ order: terms, escrow: ESCROW, orderHash: view().blockchainOrderId });
  });

  it('refuses typed data that pays more, pays someone else, or is not the order’s', () => {
    const refusal = /signed terms differ from the order view/;
    expect(signedOrderOf(view({ ...terms, outputAmount: terms.outputAmount + 1n }), input, output)).toMatch(
      refusal,
    );
    expect(signedOrderOf(view({ ...terms, recipient: terms.offerer }), input, output)).toMatch(refusal);
    expect(signedOrderOf(view({ ...terms, fillDeadline: terms.fillDeadline + 1n }), input, output)).toMatch(
      refusal,
    );
    expect(signedOrderOf(view(terms, { filler: null }), input, output)).toMatch(refusal);
    expect(signedOrderOf({ ...view(), blockchainOrderId: `0x${'ab'.repeat(32)}` }, input, output)).toMatch(
      /hashes to 0x[0-9a-f]{64}, not to its blockchainOrderId/,
    );
    expect(signedOrderOf(view(), { ...input, escrow: APP_A }, output)).toMatch(/signed for escrow/);
    expect(signedOrderOf({ ...view(), quote: undefined } as OrderView, input, output)).toMatch(
      /no typed data/,
    );
  });

  it('is settled through LayerZero when the escrow’s settler is the input chain’s app, by the attester when it is its messenger', () => {
    expect(settlementMethodOf(APP_A, input)).toBe('layerzero');
    expect(settlementMethodOf(MESSENGER_A.toUpperCase().replace('0X', '0x') as `0x${string}`, input)).toBe(
      'attester',
    );
    expect(settlementMethodOf('0x5555555555555555555555555555555555555555', input)).toBeNull();
  });
});
