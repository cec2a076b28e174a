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
  source: Type.Literal('order'),
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
