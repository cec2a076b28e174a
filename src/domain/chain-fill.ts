import type { Address } from './address.ts';

/** One Filled event of a fill contract, as read from a block at the chain's confirmations depth. */
export interface ChainFill {
  readonly chain: string;
  readonly txHash: `0x${string}`;
  readonly logIndex: number;
  readonly orderHash: `0x${string}`;
  readonly filler: Address;
  readonly recipient: Address;
  readonly token: Address;
  readonly amount: bigint;
  readonly blockNumber: bigint;
  readonly blockHash: `0x${string}`;
  /** Unix seconds, chain time. */
  readonly blockTimestamp: number;
}

/** Where a log scan stands on one chain for one contract event: the next block to read. */
export interface LogCursor {
  readonly nextBlock: bigint;
  /** Hash of block `nextBlock - 1` as it was read; null when unknown (a fresh or rewound cursor). */
  readonly lastBlockHash: `0x${string}` | null;
}

/** FerryApp's ProofSent on an output chain (read at confirmations depth): a proof message left for the input chain. */
export interface ProofSentLog {
  readonly chain: string;
  readonly txHash: `0x${string}`;
  readonly logIndex: number;
  /** The LayerZero message's guid. */
  readonly guid: `0x${string}`;
  readonly dstEid: number;
  readonly orderHashes: readonly `0x${string}`[];
  readonly blockNumber: bigint;
  /** Unix seconds, chain time. */
  readonly blockTimestamp: number;
}

/** FerryApp's ProofDelivered on an input chain: the message was executed and the escrow settled what matched. */
export interface ProofDeliveredLog {
  readonly chain: string;
  readonly txHash: `0x${string}`;
  readonly logIndex: number;
  readonly guid: `0x${string}`;
  readonly srcEid: number;
  readonly blockNumber: bigint;
  /** Unix seconds, chain time. */
  readonly blockTimestamp: number;
}
