import { Type } from 'typebox';
import { ORDER_STATUSES, QUOTE_REQUEST_STATUSES, QUOTE_STATUSES } from '../../domain/lifecycle.ts';
import type { OrderTypedData } from '../../domain/order-typed-data.ts';
import {
  AddressSchema,
  AmountSchema,
  ChainNameSchema,
  NullableString,
  NullableTimestampSchema,
  TimestampSchema,
} from './common-schemas.ts';

/** Response shapes shared by several routes. Each keeps the field names of interface-spec.md. */

export const QuoteRequestSchema = Type.Object({
  id: Type.String(),
  recipient: AddressSchema,
  offerer: AddressSchema,
  inputToken: AddressSchema,
  outputToken: AddressSchema,
  inputAmount: AmountSchema,
  inputChain: ChainNameSchema,
  outputChain: ChainNameSchema,
  status: Type.Enum(QUOTE_REQUEST_STATUSES),
  acceptedQuoteId: NullableString,
  createdAt: TimestampSchema,
  expiresAt: TimestampSchema,
});

export const TypedDataSchema = Type.Unsafe<OrderTypedData>(
  Type.Object(
    {
      domain: Type.Object({
        name: Type.String(),
        version: Type.String(),
        chainId: Type.Integer(),
        verifyingContract: AddressSchema,
      }),
      types: Type.Record(
        Type.String(),
        Type.Array(Type.Object({ name: Type.String(), type: Type.String() })),
      ),
      primaryType: Type.Literal('Order'),
      message: Type.Record(Type.String(), Type.String()),
    },
    { description: 'EIP-712 typed data of the order; sign it exactly as received (eth_signTypedData_v4)' },
  ),
);

const ProtocolFeeSchema = Type.String({
  pattern: '^[0-9]+$',
  description:
    "Ferry's protocol fee in the input token's base units (inputAmount × PROTOCOL_FEE_BPS / 10000, rounded down), " +
    'part of the signed typed data: at settlement the filler receives inputAmount − protocolFee and the fee ' +
    'recipient protocolFee; a refund returns the whole inputAmount',
});

export const QuoteSchema = Type.Object({
  id: Type.String(),
  quoteRequestId: Type.String(),
  liquidityProviderId: Type.String(),
  offerer: AddressSchema,
  recipient: AddressSchema,
  inputToken: AddressSchema,
  outputToken: AddressSchema,
  inputAmount: AmountSchema,
  outputAmount: AmountSchema,
  protocolFee: ProtocolFeeSchema,
  exclusivityDeadline: Type.String({
    pattern: '^[0-9]+$',
    description:
      "Unix seconds (output-chain time), the typed data's `exclusivityDeadline`: until then only this quote's " +
      'liquidity provider may fill the order; after it any address may (EXCLUSIVITY_SECONDS after endTime)',
  }),
  inputChain: Type.String(),
  outputChain: Type.String(),
  startTime: Type.Integer({ description: 'unix seconds' }),
  endTime: Type.Integer({ description: 'unix seconds; the quote cannot be accepted or executed after it' }),
  signingHash: Type.String({ description: 'EIP-712 hash of typedData; also the blockchainOrderId' }),
  status: Type.Enum(QUOTE_STATUSES),
  createdAt: TimestampSchema,
  orderId: Type.String(),
  typedData: TypedDataSchema,
});

export const QuoteEnvelopeSchema = Type.Object({
  quoteId: Type.String(),
  orderId: Type.String(),
  quote: QuoteSchema,
  typedData: TypedDataSchema,
});

export const OrderStatusSchema = Type.Enum(ORDER_STATUSES);

const FillerSchema = Type.Union([AddressSchema, Type.Null()], {
  description: "The liquidity provider's fill address (the typed data's `filler`)",
});
const OpenDeadlineSchema = Type.Union([Type.String({ pattern: '^[0-9]+$' }), Type.Null()], {
  description: 'Unix seconds (input-chain time), decimal string: the deposit must happen by then',
});
const FillDeadlineSchema = Type.Union([Type.String({ pattern: '^[0-9]+$' }), Type.Null()], {
  description:
    'Unix seconds (output-chain time), decimal string: the fill must happen by then; the offerer can refund ' +
    'from the escrow once the grace after it has passed on the input chain',
});

const ExclusivityDeadlineSchema = Type.Union([Type.String({ pattern: '^[0-9]+$' }), Type.Null()], {
  description:
    'Unix seconds (output-chain time), decimal string, part of the signed typed data: until then only `filler` ' +
    'may fill; after it any address may fill until fillDeadline, and the escrow pays whoever filled ' +
    '(EXCLUSIVITY_SECONDS after the quote ends). Null only for orders from before open filling',
});
const FilledBySchema = Type.Union([AddressSchema, Type.Null()], {
  description:
    'Who filled the order on the output chain (the filler of record, whom the escrow pays): `filler`, or after ' +
    '`exclusivityDeadline` any address; null until the fill is seen',
});

const SettlementMethodSchema = Type.Union([Type.Literal('layerzero'), Type.Literal('attester')], {
  description:
    "How the fill is proven to the input chain's escrow: a LayerZero message from Ferry's app on the output chain, or the operator's attester (see docs/settlement.md)",
});
const MessageIdSchema = Type.Union([Type.String({ pattern: '^0x[a-fA-F0-9]{64}$' }), Type.Null()], {
  description:
    "The settlement message's id: the LayerZero guid, or the attestation's EIP-712 digest; null before any",
});

const SettlementStatusSchema = Type.Union(
  [Type.Literal('sent'), Type.Literal('verified'), Type.Literal('delivered')],
  {
    description:
      'LayerZero: `sent` (the proof message left the output chain), `verified` (the DVNs verified it), `delivered` (executed: the escrow settled). Attester: `verified` once signed, `delivered` once the escrow settled',
  },
);

export const OrderSettlementSchema = Type.Union(
  [
    Type.Object({
      method: SettlementMethodSchema,
      messageId: MessageIdSchema,
      status: SettlementStatusSchema,
      txHash: Type.Union([Type.String(), Type.Null()], {
        description: 'The transaction that sent the message (fillAndProve, prove) or relayed the attestation',
      }),
      attestation: Type.Union(
        [
          Type.Object({
            messenger: AddressSchema,
            escrow: AddressSchema,
            filler: { ...AddressSchema, description: 'The filler of record, whom the signature binds' },
            fillTime: Type.String({
              pattern: '^[0-9]+$',
              description: "The fill's block timestamp (unix seconds)",
            }),
            signature: Type.String(),
          }),
          Type.Null(),
        ],
        {
          description:
            'Attester chains, to the liquidity provider only: the signed attestation; `AttesterMessenger.relayFill(escrow, order, filler, fillTime, signature)` settles the order with it',
        },
      ),
    }),
    Type.Null(),
  ],
  { description: "The message proving the order's fill to the escrow; null before any" },
);

export const OrderSchema = Type.Object({
  orderId: Type.String(),
  quoteId: Type.String(),
  quoteRequestId: Type.String(),
  blockchainOrderId: Type.String(),
  signature: Type.Optional(
    Type.String({
      description:
        "The offerer's EIP-712 signature. Served to the order's money mover only; absent for the liquidity provider (with it, anyone could deposit the order into the escrow).",
    }),
  ),
  status: OrderStatusSchema,
  moneyMoverAccountId: Type.String(),
  liquidityProviderAccountId: Type.String(),
  details: Type.Object({
    offerer: AddressSchema,
    recipient: AddressSchema,
    inputToken: AddressSchema,
    outputToken: AddressSchema,
    inputAmount: AmountSchema,
    outputAmount: AmountSchema,
    inputChain: Type.String(),
    outputChain: Type.String(),
    blockchainOrderId: Type.String(),
    srcChainTxHash: NullableString,
    dstChainTxHash: NullableString,
    settlementTxHash: NullableString,
    filler: FillerSchema,
    openDeadline: OpenDeadlineSchema,
    fillDeadline: FillDeadlineSchema,
    exclusivityDeadline: ExclusivityDeadlineSchema,
    filledBy: FilledBySchema,
    settlement: OrderSettlementSchema,
    protocolFee: ProtocolFeeSchema,
  }),
  createdAt: TimestampSchema,
  updatedAt: TimestampSchema,
  completedAt: NullableTimestampSchema,
  failureReason: NullableString,
  createdBy: Type.String(),
  updatedBy: Type.String(),
  metadata: Type.Record(Type.String(), Type.Unknown()),
  quote: Type.Optional(QuoteSchema),
});

export const PublicOrderSchema = Type.Object({
  id: Type.String(),
  status: OrderStatusSchema,
  createdAt: TimestampSchema,
  updatedAt: TimestampSchema,
  offerer: AddressSchema,
  recipient: AddressSchema,
  inputAmount: AmountSchema,
  outputAmount: AmountSchema,
  inputToken: AddressSchema,
  outputToken: AddressSchema,
  inputChain: Type.String(),
  outputChain: Type.String(),
  srcChainTxHash: NullableString,
  dstChainTxHash: NullableString,
  settlementTxHash: NullableString,
  failureReason: NullableString,
  source: Type.Union([Type.Literal('order'), Type.Literal('onchain')], {
    description:
      'How the order came to be: `order` through the API (a quote accepted and signed), `onchain` opened by a ' +
      "wallet with the escrow's ERC-7683 `open`, without the API (see docs/open-orders.md)",
  }),
  blockchainOrderId: Type.String({
    description: "The order's key in the escrow contract: the EIP-712 hash of its typed data",
  }),
  filler: FillerSchema,
  completedAt: NullableTimestampSchema,
  openDeadline: OpenDeadlineSchema,
  fillDeadline: FillDeadlineSchema,
  exclusivityDeadline: ExclusivityDeadlineSchema,
  filledBy: FilledBySchema,
  settlementMethod: Type.Union([SettlementMethodSchema, Type.Null()]),
  messageId: MessageIdSchema,
  settlementStatus: Type.Union([SettlementStatusSchema, Type.Null()]),
  protocolFee: ProtocolFeeSchema,
});

export const PublicQuoteSchema = Type.Object({
  id: Type.String(),
  quoteRequestId: Type.String(),
  inputToken: AddressSchema,
  outputToken: AddressSchema,
  inputAmount: AmountSchema,
  outputAmount: AmountSchema,
  inputChain: Type.String(),
  outputChain: Type.String(),
  status: Type.Enum(QUOTE_STATUSES),
  startTime: Type.Integer(),
  endTime: Type.Integer(),
  createdAt: TimestampSchema,
});

/** The public view of a quote request: what `quoteRequest.*` events carry. */
export const PublicQuoteRequestSchema = Type.Object({
  id: Type.String(),
  inputToken: AddressSchema,
  outputToken: AddressSchema,
  inputAmount: AmountSchema,
  inputChain: Type.String(),
  outputChain: Type.String(),
  status: Type.Enum(QUOTE_REQUEST_STATUSES),
  createdAt: TimestampSchema,
  expiresAt: TimestampSchema,
});

export const PublicStatsSchema = Type.Object({
  windowDays: Type.Integer({ description: 'How many days back the stats look' }),
  since: TimestampSchema,
  generatedAt: TimestampSchema,
  volume: Type.Array(
    Type.Object({
      day: Type.String({ description: 'UTC day of completion, YYYY-MM-DD', examples: ['2026-11-22'] }),
      inputChain: Type.String(),
      outputChain: Type.String(),
      inputToken: AddressSchema,
      inputAmount: Type.String({
        pattern: '^[0-9]+$',
        description: "Sum of the input amounts of that day, pair and token, in the token's base units",
      }),
      protocolFee: Type.String({
        pattern: '^[0-9]+$',
        description: "Protocol fees paid on those orders (part of inputAmount), in the token's base units",
      }),
      orders: Type.Integer(),
    }),
    { description: 'Completed orders, oldest day first; days without any are absent' },
  ),
  fillTimes: Type.Array(
    Type.Object({
      fromSeconds: Type.Integer(),
      toSeconds: Type.Union([Type.Integer(), Type.Null()], {
        description: 'Exclusive; null: no upper bound',
      }),
      orders: Type.Integer(),
    }),
    { description: 'Completed orders by completedAt − createdAt, every bucket present' },
  ),
  outcomes: Type.Array(Type.Object({ status: OrderStatusSchema, orders: Type.Integer() }), {
    description: 'Orders created in the window by current status, every status present',
  }),
});
