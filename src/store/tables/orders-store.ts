import type { Selectable } from 'kysely';
import type { Address } from '../../domain/address.ts';
import type { OrderStatus } from '../../domain/lifecycle.ts';
import type { OrderSearch } from '../../domain/order-search.ts';
import type { PageRequest } from '../../domain/pagination.ts';
import type { AccountType } from '../../domain/principal.ts';
import type {
  FillAttestation,
  Order,
  OrderSettlement,
  OrderSource,
  SettlementMessageStatus,
  SettlementMethod,
} from '../../domain/records.ts';
import { compiledQuery } from '../engine/compiled-query.ts';
import type { Executor } from '../engine/db-types.ts';
import { pageOf } from '../engine/page-query.ts';
import type { OrdersTable } from '../engine/schema.ts';

const time = (ms: number | null) => (ms === null ? null : new Date(ms));

export function toOrder(row: Selectable<OrdersTable>): Order {
  return {
    id: row.id,
    quoteId: row.quote_id,
    quoteRequestId: row.quote_request_id,
    blockchainOrderId: row.blockchain_order_id as `0x${string}`,
    signature: row.signature as `0x${string}`,
    status: row.status as OrderStatus,
    moneyMoverAccountId: row.money_mover_account_id,
    liquidityProviderAccountId: row.liquidity_provider_account_id,
    offerer: row.offerer as Address,
    recipient: row.recipient as Address,
    inputToken: row.input_token as Address,
    outputToken: row.output_token as Address,
    inputAmount: BigInt(row.input_amount),
    outputAmount: BigInt(row.output_amount),
    inputChain: row.input_chain,
    outputChain: row.output_chain,
    srcChainTxHash: row.src_chain_tx_hash,
    dstChainTxHash: row.dst_chain_tx_hash,
    settlementTxHash: row.settlement_tx_hash,
    failureReason: row.failure_reason,
    metadata: JSON.parse(row.metadata) as Record<string, unknown>,
    createdBy: row.created_by,
    updatedBy: row.updated_by,
    createdAt: new Date(row.created_at),
    updatedAt: new Date(row.updated_at),
    completedAt: time(row.completed_at),
    filler: row.filler as Address | null,
    openDeadline: row.open_deadline === null ? null : BigInt(row.open_deadline),
    fillDeadline: row.fill_deadline === null ? null : BigInt(row.fill_deadline),
    settlement: toOrderSettlement(row),
    fillAttestation: toFillAttestation(row.fill_attestation),
    // Columns of later migrations read as absent on a database migrated only so far (the migration tests).
    protocolFee: BigInt(row.protocol_fee ?? '0'),
    exclusivityDeadline: row.exclusivity_deadline == null ? null : BigInt(row.exclusivity_deadline),
    filledBy: (row.filled_by ?? null) as Address | null,
    exclusivityLapsedAt: time(row.exclusivity_lapsed_at == null ? null : Number(row.exclusivity_lapsed_at)),
    source: (row.source ?? 'order') as OrderSource,
  };
}

function toOrderSettlement(row: Selectable<OrdersTable>): OrderSettlement | null {
  if (row.settlement_method == null || row.settlement_status == null) return null;
  return {
    method: row.settlement_method as SettlementMethod,
    messageId: row.settlement_message_id as `0x${string}` | null,
    status: row.settlement_status as SettlementMessageStatus,
    txHash: row.settlement_message_tx as `0x${string}` | null,
    sentAt: time(row.settlement_sent_at === null ? null : Number(row.settlement_sent_at)),
    deliveredAt: time(row.settlement_delivered_at === null ? null : Number(row.settlement_delivered_at)),
  };
}

function toFillAttestation(json: string | null | undefined): FillAttestation | null {
  if (json == null) return null;
  const a = JSON.parse(json) as {
    messenger: Address;
    escrow: Address;
    filler: Address;
    fillTime: string;
    signature: `0x${string}`;
  };
  return { ...a, fillTime: BigInt(a.fillTime) };
}

/** The insert of `o`, compiled but not sent: for `database.write`, which sends it together with its event. */
export function orderInsert(o: Order) {
  return (db: Executor) =>
    db
      .insertInto('orders')
      .values({
        id: o.id,
        quote_id: o.quoteId,
        quote_request_id: o.quoteRequestId,
        blockchain_order_id: o.blockchainOrderId,
        signature: o.signature,
        status: o.status,
        money_mover_account_id: o.moneyMoverAccountId,
        liquidity_provider_account_id: o.liquidityProviderAccountId,
        offerer: o.offerer,
        recipient: o.recipient,
        input_token: o.inputToken,
        output_token: o.outputToken,
        input_amount: o.inputAmount.toString(),
        output_amount: o.outputAmount.toString(),
        input_chain: o.inputChain,
        output_chain: o.outputChain,
        src_chain_tx_hash: o.srcChainTxHash,
        dst_chain_tx_hash: o.dstChainTxHash,
        settlement_tx_hash: o.settlementTxHash,
        failure_reason: o.failureReason,
        metadata: JSON.stringify(o.metadata),
        created_by: o.createdBy,
        updated_by: o.updatedBy,
        created_at: o.createdAt.getTime(),
        updated_at: o.updatedAt.getTime(),
        completed_at: o.completedAt?.getTime() ?? null,
        filler: o.filler,
        open_deadline: o.openDeadline === null ? null : Number(o.openDeadline),
        fill_deadline: o.fillDeadline === null ? null : Number(o.fillDeadline),
        exclusivity_deadline: o.exclusivityDeadline === null ? null : Number(o.exclusivityDeadline),
        filled_by: o.filledBy,
        exclusivity_lapsed_at: o.exclusivityLapsedAt?.getTime() ?? null,
        protocol_fee: o.protocolFee.toString(),
        source: o.source,
      })
      .compile();
}

const selectOrder = compiledQuery((db, p: { id: string }) =>
  db.selectFrom('orders').selectAll().where('id', '=', p.id),
);

export async function findOrder(db: Executor, id: string): Promise<Order | null> {
  const row = (await selectOrder(db, { id })).rows[0];
  return row ? toOrder(row) : null;
}

export async function findOrderByQuote(db: Executor, quoteId: string): Promise<Order | null> {
  const row = await db.selectFrom('orders').selectAll().where('quote_id', '=', quoteId).executeTakeFirst();
  return row ? toOrder(row) : null;
}

/** How many orders have each status (statuses without orders are absent): one grouped count, for /metrics. */
export async function countOrdersByStatus(db: Executor): Promise<Map<OrderStatus, number>> {
  const rows = await db
    .selectFrom('orders')
    .select(['status', db.fn.countAll<number | string>().as('count')])
    .groupBy('status')
    .execute();
  return new Map(rows.map((row) => [row.status as OrderStatus, Number(row.count)]));
}

export interface AccountOrderFilter {
  readonly accountId: string;
  /** Which side of the order the account must be on. */
  readonly side: AccountType;
  readonly status: OrderStatus | null;
}

export async function listAccountOrders(db: Executor, filter: AccountOrderFilter, page: PageRequest) {
  const column = filter.side === 'moneyMover' ? 'money_mover_account_id' : 'liquidity_provider_account_id';
  let query = db.selectFrom('orders').where(column, '=', filter.accountId);
  if (filter.status !== null) query = query.where('status', '=', filter.status);
  return pageOf(query, page, toOrder);
}

/**
 * Deposited orders whose exclusivity the worker saw lapse unfilled, with their fill deadline (unix seconds) still
 * ahead of `nowSeconds`: any liquidity provider may fill them.
 */
export async function listOpenOrders(db: Executor, nowSeconds: number, page: PageRequest) {
  const query = db
    .selectFrom('orders')
    .where('status', '=', 'deposited')
    .where('exclusivity_lapsed_at', 'is not', null)
    .where('fill_deadline', '>', nowSeconds);
  return pageOf(query, page, toOrder);
}

/**
 * Public listing: every order, or those one search names. An address matches the offerer or the recipient, and
 * the fill address too when `matchFiller` (a search, not the older `address` filter); a 0x + 64 hex value matches
 * the blockchain order id or any of the three transaction hashes. Each branch has its index (0001, 0008).
 */
export async function listPublicOrders(
  db: Executor,
  search: OrderSearch | null,
  page: PageRequest,
  { matchFiller }: { matchFiller: boolean } = { matchFiller: false },
) {
  let query = db.selectFrom('orders');
  if (search?.kind === 'address') {
    const { address } = search;
    query = query.where((eb) =>
      eb.or([
        eb('offerer', '=', address),
        eb('recipient', '=', address),
        ...(matchFiller ? [eb('filler', '=', address)] : []),
      ]),
    );
  } else if (search?.kind === 'hash') {
    const { hash } = search;
    query = query.where((eb) =>
      eb.or([
        eb('blockchain_order_id', '=', hash),
        eb('src_chain_tx_hash', '=', hash),
        eb('dst_chain_tx_hash', '=', hash),
        eb('settlement_tx_hash', '=', hash),
      ]),
    );
  } else if (search?.kind === 'orderId') {
    query = query.where('id', '=', search.id);
  }
  return pageOf(query, page, toOrder);
}
