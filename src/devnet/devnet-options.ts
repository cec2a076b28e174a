import type { Address, Hex } from 'viem';
import type { ChainLogger } from '../chains/chain-logger.ts';

/** What deployDevnetContracts (devnet.ts) deploys on one devnet, and for whom. */

/** Circle's USDC (FiatTokenV2_2 behind its proxy, usdc-devnet.ts) or Ferry's plain test stablecoin. */
export type DevnetTokenContract = 'FiatTokenV2_2' | 'TestStablecoin';

export interface DevnetTokenSpec {
  symbol: string;
  /** The token's name, also its EIP-2612 domain name. */
  name: string;
  contract: DevnetTokenContract;
}

export const DEFAULT_DEVNET_TOKENS: readonly DevnetTokenSpec[] = [
  { symbol: 'USDC', name: 'USD Coin', contract: 'FiatTokenV2_2' },
  { symbol: 'USDT', name: 'Devnet Tether USD', contract: 'TestStablecoin' },
];

export interface DeployDevnetOptions {
  rpcUrl: string;
  chainId: number;
  /** Default: anvil account 0. Must have sent no transaction before the first deployment. */
  deployerKey?: Hex;
  /** Attester devnet: the address whose EIP-712 FillAttestation signatures settle orders. */
  attester?: Address;
  /** LayerZero devnet: the chain's EndpointV2 (LayerZero deployed already); the app is wired afterwards. */
  layerzeroEndpoint?: Address;
  /** Default: USDC and USDT. Order matters: it determines the addresses. */
  tokens?: readonly DevnetTokenSpec[];
  /** Every wallet is topped up to at least `amount` (base units, 6 decimals) of every token. */
  mints?: readonly { to: Address; amount: bigint }[];
  /** The escrow's settle grace in seconds (refunds open this long after fillDeadline). */
  settleGrace?: number;
  /** The escrow's protocol fee in bps (immutable; PROTOCOL_FEE_BPS must equal it). Default 0. */
  protocolFeeBps?: number;
  log?: ChainLogger;
}
