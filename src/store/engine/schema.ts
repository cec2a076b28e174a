import type { Generated } from 'kysely';

/** Table shapes as Kysely sees them. Times are unix milliseconds; amounts are decimal strings (uint256). */
export interface AccountsTable {
  id: string;
  type: string;
  name: string;
  address: string | null;
  created_at: number;
  /** 1 when Sign-In with Ethereum may act as this account (created by sign-in, or opted in by the operator). */
  wallet_sign_in: Generated<number>;
}

export interface ApiKeysTable {
  id: string;
  account_id: string;
  key_hash: string;
  key_prefix: string;
  created_at: number;
  revoked_at: number | null;
  last_used_at: number | null;
}

export interface SiweNoncesTable {
  nonce: string;
  expires_at: number;
  used_at: number | null;
}

export interface SessionsTable {
  id: string;
  token_hash: string;
  account_id: string;
  address: string;
  created_at: number;
  expires_at: number;
  revoked_at: number | null;
}

export interface QuoteRequestsTable {
  id: string;
  account_id: string;
  offerer: string;
  recipient: string;
  input_token: string;
  output_token: string;
  input_amount: string;
  input_chain: string;
  output_chain: string;
  status: string;
  accepted_quote_id: string | null;
  created_at: number;
  updated_at: number;
  expires_at: number;
}

export interface QuotesTable {
  id: string;
  quote_request_id: string;
  liquidity_provider_id: string;
  order_id: string;
  output_amount: string;
  start_time: number;
  end_time: number;
  signing_hash: string;
  typed_data: string;
  status: string;
  created_at: number;
  updated_at: number;
}

export interface OrdersTable {
  id: string;
  quote_id: string;
  quote_request_id: string;
  blockchain_order_id: string;
  signature: string;
  status: string;
  money_mover_account_id: string;
  liquidity_provider_account_id: string;
  offerer: string;
  recipient: string;
  input_token: string;
  output_token: string;
  input_amount: string;
  output_amount: string;
  input_chain: string;
  output_chain: string;
  src_chain_tx_hash: string | null;
  dst_chain_tx_hash: string | null;
  settlement_tx_hash: string | null;
  failure_reason: string | null;
  metadata: string;
  created_by: string;
  updated_by: string;
  created_at: number;
  updated_at: number;
  completed_at: number | null;
  /** From the quote's typed data (0008); optional on insert only for rows written outside the API (tests, bench). */
  filler: Generated<string | null>;
  open_deadline: Generated<number | null>;
  fill_deadline: Generated<number | null>;
  exclusivity_deadline: Generated<number | null>;
  filled_by: Generated<string | null>;
  exclusivity_lapsed_at: Generated<number | null>;
  /** 'order' (through the API) or 'onchain' (opened by a wallet on an escrow, 0027). */
  source: Generated<string>;
  /** The proof message of the order's fill (0014): see OrderSettlement in src/domain/records.ts. */
  settlement_method: Generated<string | null>;
  settlement_message_id: Generated<string | null>;
  settlement_status: Generated<string | null>;
  settlement_message_tx: Generated<string | null>;
  /** Unix milliseconds. */
  settlement_sent_at: Generated<number | null>;
  settlement_delivered_at: Generated<number | null>;
  /** JSON of FillAttestation (attester chains), once signed. */
  fill_attestation: Generated<string | null>;
  /** 0016: the order's protocol fee in input-token base units ('0' for older rows). */
  protocol_fee: Generated<string>;
  lease_owner: Generated<string | null>;
  lease_expires_at: Generated<number | null>;
  next_attempt_at: Generated<number>;
  attempts: Generated<number>;
}

export interface EventsTable {
  /**
   * SQLite: autoincrement. PostgreSQL: derived from the writing transaction's id, which a separate `xid` column
   * (xid8) also keeps; only the store's raw append and tail queries touch it (events-store.ts).
   */
  id: Generated<number>;
  type: string;
  occurred_at: number;
  /** JSON: the public view, safe for the anonymous stream. */
  data: string;
  /** JSON array of account ids that may see this event on their private channel. */
  account_ids: string;
}

export interface IdempotencyKeysTable {
  scope: string;
  key: string;
  request_hash: string;
  status_code: number | null;
  response_body: string | null;
  created_at: number;
}

export interface ChainActionsTable {
  id: string;
  order_id: string;
  kind: string;
  /** 0 for the first action of its order and kind; a retry after a revert is the next. */
  seq: Generated<number>;
  chain: string;
  from_address: string;
  nonce: number;
  tx_hash: string;
  raw_tx: string;
  /**
   * recorded (signed, maybe sent) → confirmed | reverted | cancelled, or nonce-conflict (the nonce was taken by
   * another)
   */
  status: string;
  created_at: number;
  updated_at: number;
  /** When the current attempt started waiting to be mined: the replacement timer. */
  waiting_since: number | null;
  /** When the action first could not be raised further because of the chain's fee cap. */
  fee_capped_at: number | null;
}

/** Every signed transaction of a chain action (replacements share its nonce); fees are decimal wei. */
export interface ChainActionTxsTable {
  tx_hash: string;
  action_id: string;
  attempt: number;
  raw_tx: string;
  max_fee_per_gas: string;
  max_priority_fee_per_gas: string;
  /** recorded → sent | underpriced → mined (below depth) → confirmed | reverted */
  status: string;
  /** `call`, or `cancel`: a zero-value self-transfer spending the action's nonce. */
  purpose: Generated<string>;
  created_at: number;
  broadcast_at: number | null;
}

/** The orders a chain action serves besides its own: the worker's prove of several orders (migration 0021). */
export interface ChainActionOrdersTable {
  /** The action's own order, kind and seq (chain_actions' unique key). */
  action_order_id: string;
  kind: string;
  seq: number;
  order_id: string;
}

export interface ChainNoncesTable {
  chain: string;
  address: string;
  next_nonce: number;
}

export interface LogCursorsTable {
  chain: string;
  /** What is scanned, e.g. `fill:<contract address>`: one cursor per contract event. */
  scope: string;
  next_block: number;
  last_block_hash: string | null;
  updated_at: number;
}

export interface ChainFillsTable {
  chain: string;
  tx_hash: string;
  log_index: number;
  order_hash: string;
  filler: string;
  recipient: string;
  token: string;
  amount: string;
  block_number: number;
  block_hash: string;
  /** Unix seconds (chain time). */
  block_timestamp: number;
}

export interface WebhookEndpointsTable {
  id: string;
  account_id: string;
  url: string;
  /** JSON array of event types; null means every event of the account channel. */
  events: string | null;
  /** `whsec_…`: Ferry signs with it, so it is kept as is (shown to the account once). */
  secret: string;
  after_event_id: number;
  created_at: number;
  lease_until: number | null;
  /** Failed attempts in a row, whichever delivery: the endpoint's backoff step (0: in good standing). */
  failures: Generated<number>;
  /** Not attempted before this (ms): the endpoint's backoff. */
  retry_at: number | null;
  /** When a dispatcher last claimed it (ms): the longest-waiting endpoint is claimed first. */
  claimed_at: number | null;
}

export interface WebhookDeliveriesTable {
  id: string;
  endpoint_id: string;
  event_id: number;
  event_type: string;
  /** pending → delivered | failed */
  status: string;
  attempts: Generated<number>;
  failures: Generated<number>;
  next_attempt_at: number | null;
  created_at: number;
  updated_at: number;
}

export interface WebhookAttemptsTable {
  delivery_id: string;
  attempt: number;
  attempted_at: number;
  /** delivered | retry | failed | refused */
  outcome: string;
  status_code: number | null;
  error: string | null;
  next_attempt_at: number | null;
}

export interface WebhookCursorTable {
  name: string;
  position: number;
}

/** FerryApp's ProofSent on an output chain: one row per order hash the message proves. */
export interface ProofSentTable {
  chain: string;
  tx_hash: string;
  log_index: number;
  order_hash: string;
  guid: string;
  dst_eid: number;
  block_number: number;
  /** Unix seconds (chain time). */
  block_timestamp: number;
}

/** FerryApp's ProofDelivered on an input chain. */
export interface ProofDeliveredTable {
  chain: string;
  tx_hash: string;
  log_index: number;
  guid: string;
  src_eid: number;
  block_number: number;
  /** Unix seconds (chain time). */
  block_timestamp: number;
}

/** A swap's EIP-2612 permit (0015-swap-permits.ts). */
export interface SwapPermitsTable {
  order_id: string;
  /** Unix seconds, a decimal string (uint256). */
  deadline: string;
  /** The offerer's 65-byte permit signature. */
  signature: string;
  /** The token nonce the permit was signed over (decimal string); null for permits written before it was kept. */
  nonce: string | null;
}

/** An LP's open promises per output chain, token, kind and end second (migrations/0019-lp-promises.ts). */
export interface LpPromisesTable {
  lp_account_id: string;
  chain: string;
  token: string;
  kind: 'quote' | 'accepted' | 'order';
  end_time: number;
  /** A signed decimal string (numeric on PostgreSQL). */
  amount: string;
}

/** Migration 0023: the input of an offerer's open quote requests per token and second of expiry. */
export interface OffererInputTotalsTable {
  offerer: string;
  chain: string;
  token: string;
  end_second: number;
  /** A decimal string (numeric on PostgreSQL). */
  amount: string;
}

export interface Database {
  lp_promises: LpPromisesTable;
  offerer_input_totals: OffererInputTotalsTable;
  swap_permits: SwapPermitsTable;
  webhook_endpoints: WebhookEndpointsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_attempts: WebhookAttemptsTable;
  webhook_cursor: WebhookCursorTable;
  log_cursors: LogCursorsTable;
  chain_fills: ChainFillsTable;
  proof_sent: ProofSentTable;
  proof_delivered: ProofDeliveredTable;
  chain_actions: ChainActionsTable;
  chain_action_txs: ChainActionTxsTable;
  chain_action_orders: ChainActionOrdersTable;
  chain_nonces: ChainNoncesTable;
  accounts: AccountsTable;
  api_keys: ApiKeysTable;
  siwe_nonces: SiweNoncesTable;
  sessions: SessionsTable;
  quote_requests: QuoteRequestsTable;
  quotes: QuotesTable;
  orders: OrdersTable;
  events: EventsTable;
  idempotency_keys: IdempotencyKeysTable;
}
