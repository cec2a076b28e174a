import fs from 'node:fs';
import { type Static, Type } from 'typebox';
import { Value } from 'typebox/value';
import { getAddress, parseEther } from 'viem';
import { ConfigError } from '../config/config.ts';
import type { Address } from '../domain/address.ts';
import type { GraceRoute } from '../domain/settle-grace-rule.ts';
import { hasSettlementPath } from '../domain/settlement-path.ts';

const AddressSchema = Type.String({ pattern: '^0x[a-fA-F0-9]{40}$' });

export const TokenSchema = Type.Object({
  symbol: Type.String({ minLength: 1, maxLength: 16 }),
  address: AddressSchema,
  decimals: Type.Integer({ minimum: 0, maximum: 36 }),
  /** Smallest accepted inputAmount in base units (decimal string); default one whole token. */
  minAmount: Type.Optional(Type.String({ pattern: '^[0-9]{1,78}$' })),
  /** The token's EIP-2612 domain (name, version) when it takes permits: deposits then need no approve. */
  permit: Type.Optional(
    Type.Object({ name: Type.String({ minLength: 1 }), version: Type.String({ minLength: 1 }) }),
  ),
});

/** A chain's LayerZero V2 deployment and the verifier set Ferry's app is pinned to. */
export const LayerZeroSchema = Type.Object({
  /** LayerZero's endpoint id for the chain (not the EVM chain id). */
  eid: Type.Integer({ minimum: 1, maximum: 4_294_967_295 }),
  endpoint: AddressSchema,
  sendLibrary: AddressSchema,
  receiveLibrary: AddressSchema,
  executor: AddressSchema,
  /** DVNs that must all verify a message before it can be delivered (at least one). */
  requiredDvns: Type.Array(AddressSchema, { minItems: 1 }),
  /** Further DVNs, of which `optionalDvnThreshold` must verify. */
  optionalDvns: Type.Optional(Type.Array(AddressSchema)),
  optionalDvnThreshold: Type.Optional(Type.Integer({ minimum: 0, maximum: 255 })),
  /** Blocks the DVNs wait on the sending chain before verifying. */
  confirmations: Type.Optional(Type.Integer({ minimum: 1, maximum: 100_000 })),
  /** Seconds the DVNs take to verify a message sent from this chain once its confirmations are in. */
  dvnVerifySeconds: Type.Optional(Type.Integer({ minimum: 0, maximum: 86_400 })),
});

export const ChainSchema = Type.Object({
  name: Type.String({ pattern: '^[a-z0-9][a-z0-9-]{0,63}$' }),
  chainId: Type.Integer({ minimum: 1 }),
  rpcUrl: Type.String({ minLength: 1 }),
  /** Whether rpcUrl may be shown to the public (it may carry credentials on real chains). */
  rpcUrlPublic: Type.Optional(Type.Boolean()),
  explorerUrl: Type.Optional(Type.String()),
  /**
   * A WebSocket JSON-RPC endpoint of the same node (ws:// or wss://): the settlement worker subscribes to new
   * blocks there and looks at its orders as each block arrives. Never shown to the public.
   */
  wsUrl: Type.Optional(Type.String({ pattern: '^wss?://' })),
  confirmations: Type.Optional(Type.Integer({ minimum: 0, maximum: 1000 })),
  /**
   * The chain's block time in seconds (at most; fractions allowed): with the LayerZero confirmations it bounds how
   * long a proof message from this chain waits before the DVNs verify it (the settle grace rule). Declared, not
   * measured: a chain's recent blocks say nothing about its worst case. Default 12 (Ethereum's slot).
   */
  blockTimeSeconds: Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: 3600 })),
  /** First block worth scanning for Ferry's logs (the deployment block); scans never start below it. */
  startBlock: Type.Optional(Type.Integer({ minimum: 0 })),
  /** Largest block range asked of the RPC in one eth_getLogs call. */
  maxLogRange: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000 })),
  /** A Ferry transaction not mined after this many seconds is replaced at the same nonce with higher fees. */
  replaceAfterSeconds: Type.Optional(Type.Integer({ minimum: 1, maximum: 3600 })),
  /** Fee cap for replacements: maxFeePerGas never goes above this many gwei. */
  maxFeePerGasGwei: Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: 1_000_000 })),
  /** Below this native balance (in ether) the relayer is reported: a warning, and /readyz lists it. */
  relayerMinBalanceEther: Type.Optional(Type.Number({ minimum: 0, maximum: 1_000_000 })),
  /**
   * LayerZero output chain: a final fill here whose proof message was not sent after this many seconds is proven
   * by the settlement worker itself (FerryApp.prove, paying the fee).
   */
  proveAfterSeconds: Type.Optional(Type.Integer({ minimum: 0, maximum: 86_400 })),
  /**
   * LayerZero input chain: a proof message the DVNs verified but nobody delivered this many seconds after it was
   * sent is committed and executed by the settlement worker itself (EndpointV2.lzReceive).
   */
  executeAfterSeconds: Type.Optional(Type.Integer({ minimum: 0, maximum: 86_400 })),
  /**
   * How fills are proven to this chain's escrow: "layerzero" (a message from Ferry's app on the output chain,
   * verified by the DVNs in `layerzero`) or "attester" (the operator's attester key, through
   * `contracts.messenger`). Default: "layerzero" when `layerzero` is given, else "attester".
   */
  messenger: Type.Optional(Type.Union([Type.Literal('layerzero'), Type.Literal('attester')])),
  contracts: Type.Object({
    escrow: AddressSchema,
    /** FerryFill; on a LayerZero chain, FerryApp (which records fills and is the escrow's settler). */
    fill: AddressSchema,
    /** The AttesterMessenger: required when the chain settles through the attester. */
    messenger: Type.Optional(AddressSchema),
  }),
  layerzero: Type.Optional(LayerZeroSchema),
  tokens: Type.Array(TokenSchema),
});

export const DEFAULT_MAX_LOG_RANGE = 2_000;
export const DEFAULT_REPLACE_AFTER_SECONDS = 30;
export const DEFAULT_MAX_FEE_PER_GAS_GWEI = 1_000;
/** A few dozen settlements' worth of gas at ordinary fees: time to top up before orders stall. */
export const DEFAULT_RELAYER_MIN_BALANCE_ETHER = 0.05;
/** Time for the filler's own fillAndProve (or a prove batch) before the worker proves a fill. */
export const DEFAULT_PROVE_AFTER_SECONDS = 60;
/** Time for LayerZero's executor before the worker delivers a verified message itself. */
export const DEFAULT_EXECUTE_AFTER_SECONDS = 120;
/** Ethereum's slot: the slowest block time of the usual EVM chains, so an undeclared chain is judged cautiously. */
export const DEFAULT_BLOCK_TIME_SECONDS = 12;
/** Time for the DVNs to verify once a message's confirmations are in. */
export const DEFAULT_DVN_VERIFY_SECONDS = 60;

/** Gwei (possibly fractional, as operators write it) to wei, without floating-point drift below 1 wei. */
function gweiToWei(gwei: number): bigint {
  return BigInt(Math.round(gwei * 1e9));
}

export const RegistryFileSchema = Type.Object({ chains: Type.Array(ChainSchema, { minItems: 1 }) });
export type RegistryFile = Static<typeof RegistryFileSchema>;

export interface Token {
  readonly symbol: string;
  readonly address: Address;
  readonly decimals: number;
  readonly minAmount: bigint;
  /** The EIP-2612 domain's name and version; null when the token takes no permits. */
  readonly permit: { readonly name: string; readonly version: string } | null;
}

export interface Chain {
  readonly name: string;
  readonly chainId: number;
  readonly rpcUrl: string;
  readonly rpcUrlPublic: boolean;
  readonly explorerUrl: string | null;
  /** Where new blocks are pushed (eth_subscribe newHeads); null: the worker learns of blocks by polling. */
  readonly wsUrl: string | null;
  readonly confirmations: number;
  /** See ChainSchema's `blockTimeSeconds`. */
  readonly blockTimeSeconds: number;
  readonly startBlock: bigint;
  readonly maxLogRange: number;
  readonly replaceAfterSeconds: number;
  /** In wei. */
  readonly maxFeePerGas: bigint;
  /** In wei: the relayer's balance below which it is reported. */
  readonly relayerMinBalance: bigint;
  /** See ChainSchema's `proveAfterSeconds` (this chain as the output chain). */
  readonly proveAfterSeconds: number;
  /** See ChainSchema's `executeAfterSeconds` (this chain as the input chain). */
  readonly executeAfterSeconds: number;
  readonly contracts: {
    readonly escrow: Address;
    readonly fill: Address;
    readonly messenger: Address | null;
  };
  readonly settlement: ChainSettlement;
  readonly tokens: readonly Token[];
}

export interface LayerZeroChain {
  readonly eid: number;
  readonly endpoint: Address;
  readonly sendLibrary: Address;
  readonly receiveLibrary: Address;
  readonly executor: Address;
  readonly requiredDvns: readonly Address[];
  readonly optionalDvns: readonly Address[];
  readonly optionalDvnThreshold: number;
  readonly confirmations: number;
  readonly dvnVerifySeconds: number;
}

/** How fills are proven to the chain's escrow (see ChainSchema's `messenger`). */
export type ChainSettlement =
  | { readonly method: 'layerzero'; readonly layerzero: LayerZeroChain }
  /** messenger null: a registry for an API without a worker (the worker refuses to start on such a chain). */
  | { readonly method: 'attester'; readonly messenger: Address | null };

/** The chains Ferry serves, looked up by name (the `inputChain` / `outputChain` value). */
export interface ChainRegistry {
  readonly chains: readonly Chain[];
  chain(name: string): Chain | undefined;
  token(chainName: string, address: string): Token | undefined;
}

/**
 * The names of the chains an order from `input` may be filled on: every other chain with a settlement path
 * (see settlement-path.ts).
 */
export function outputChainsOf(registry: ChainRegistry, input: Chain): string[] {
  return registry.chains
    .filter((c) => c.name !== input.name && hasSettlementPath(input.settlement.method, c.settlement.method))
    .map((c) => c.name);
}

/**
 * The settle grace routes of orders from `input` (a LayerZero chain) with its escrow's `settleGrace`: one per
 * output chain it settles (see settle-grace-rule.ts). `outputs` defaults to those of the registry.
 */
export function graceRoutes(
  registry: ChainRegistry,
  input: Chain,
  settleGrace: bigint,
  outputs: readonly Chain[] = outputChainsOf(registry, input).map((name) => registryChain(registry, name)),
): GraceRoute[] {
  if (input.settlement.method !== 'layerzero') return [];
  return outputs.flatMap((output) =>
    output.settlement.method === 'layerzero'
      ? [
          {
            inputChain: input.name,
            outputChain: output.name,
            settleGrace,
            sourceConfirmations: output.settlement.layerzero.confirmations,
            sourceBlockSeconds: output.blockTimeSeconds,
            dvnVerifySeconds: output.settlement.layerzero.dvnVerifySeconds,
            proveAfter: output.proveAfterSeconds,
            executeAfter: input.executeAfterSeconds,
          },
        ]
      : [],
  );
}

/** The chain named `name`; a name outside the registry is a programming error, not input. */
export function registryChain(registry: ChainRegistry, name: string): Chain {
  const chain = registry.chain(name);
  if (!chain) throw registryError(`chain ${name} is not in the registry`);
  return chain;
}

function layerZeroChain(lz: Static<typeof LayerZeroSchema>): LayerZeroChain {
  return {
    eid: lz.eid,
    endpoint: getAddress(lz.endpoint),
    sendLibrary: getAddress(lz.sendLibrary),
    receiveLibrary: getAddress(lz.receiveLibrary),
    executor: getAddress(lz.executor),
    requiredDvns: lz.requiredDvns.map((a) => getAddress(a)),
    optionalDvns: (lz.optionalDvns ?? []).map((a) => getAddress(a)),
    optionalDvnThreshold: lz.optionalDvnThreshold ?? 0,
    confirmations: lz.confirmations ?? 1,
    dvnVerifySeconds: lz.dvnVerifySeconds ?? DEFAULT_DVN_VERIFY_SECONDS,
  };
}

function chainSettlement(c: Static<typeof ChainSchema>): ChainSettlement {
  const method = c.messenger ?? (c.layerzero ? 'layerzero' : 'attester');
  if (method === 'layerzero') {
    if (!c.layerzero)
      throw registryError(
        `Invalid chain registry: chain "${c.name}" settles through layerzero but has no "layerzero"`,
      );
    return { method, layerzero: layerZeroChain(c.layerzero) };
  }
  return { method, messenger: c.contracts.messenger ? getAddress(c.contracts.messenger) : null };
}

export function createChainRegistry(file: RegistryFile): ChainRegistry {
  if (!Value.Check(RegistryFileSchema, file)) {
    const problems = [...Value.Errors(RegistryFileSchema, file)].map(
      (e) => `${e.instancePath || '/'} ${e.message}`,
    );
    throw new ConfigError(problems, { message: `Invalid chain registry:\n  - ${problems.join('\n  - ')}` });
  }
  const names = new Set<string>();
  const chains: Chain[] = file.chains.map((c) => {
    if (names.has(c.name))
      throw registryError(`Invalid chain registry: chain name "${c.name}" appears twice`);
    names.add(c.name);
    return {
      name: c.name,
      chainId: c.chainId,
      rpcUrl: c.rpcUrl,
      rpcUrlPublic: c.rpcUrlPublic ?? false,
      explorerUrl: c.explorerUrl ?? null,
      wsUrl: c.wsUrl ?? null,
      confirmations: c.confirmations ?? 1,
      blockTimeSeconds: c.blockTimeSeconds ?? DEFAULT_BLOCK_TIME_SECONDS,
      startBlock: BigInt(c.startBlock ?? 0),
      maxLogRange: c.maxLogRange ?? DEFAULT_MAX_LOG_RANGE,
      replaceAfterSeconds: c.replaceAfterSeconds ?? DEFAULT_REPLACE_AFTER_SECONDS,
      maxFeePerGas: gweiToWei(c.maxFeePerGasGwei ?? DEFAULT_MAX_FEE_PER_GAS_GWEI),
      relayerMinBalance: parseEther(String(c.relayerMinBalanceEther ?? DEFAULT_RELAYER_MIN_BALANCE_ETHER)),
      proveAfterSeconds: c.proveAfterSeconds ?? DEFAULT_PROVE_AFTER_SECONDS,
      executeAfterSeconds: c.executeAfterSeconds ?? DEFAULT_EXECUTE_AFTER_SECONDS,
      contracts: {
        escrow: getAddress(c.contracts.escrow),
        fill: getAddress(c.contracts.fill),
        messenger: c.contracts.messenger ? getAddress(c.contracts.messenger) : null,
      },
      settlement: chainSettlement(c),
      tokens: c.tokens.map((t) => ({
        symbol: t.symbol,
        address: getAddress(t.address),
        decimals: t.decimals,
        minAmount: t.minAmount === undefined ? 10n ** BigInt(t.decimals) : BigInt(t.minAmount),
        permit: t.permit ? { name: t.permit.name, version: t.permit.version } : null,
      })),
    };
  });
  const byName = new Map(chains.map((c) => [c.name, c]));
  return {
    chains,
    chain: (name) => byName.get(name),
    token: (chainName, address) =>
      byName.get(chainName)?.tokens.find((t) => t.address.toLowerCase() === address.toLowerCase()),
  };
}

/**
 * What `address` is to Ferry when it is the zero address, a Ferry contract (escrow, fill, messenger) or a
 * token of any registry chain, else null. Such an address can never be a swap's recipient: tokens sent there
 * are burned or stuck (a contract does not forward them).
 */
export function reservedAddressRole(registry: ChainRegistry, address: string): string | null {
  const wanted = address.toLowerCase();
  if (/^0x0{40}$/.test(wanted)) return 'the zero address';
  for (const chain of registry.chains) {
    for (const [role, contract] of Object.entries(chain.contracts)) {
      if (contract?.toLowerCase() === wanted) return `Ferry's ${role} contract on ${chain.name}`;
    }
    const token = chain.tokens.find((t) => t.address.toLowerCase() === wanted);
    if (token) return `the ${token.symbol} token contract on ${chain.name}`;
  }
  return null;
}

/** A registry problem said in one line: a ConfigError (the same file fails the same way), the message as is. */
export function registryError(message: string, cause?: unknown): ConfigError {
  return new ConfigError([message], { message, cause });
}

export function loadChainRegistryFile(filePath: string): ChainRegistry {
  let parsed: unknown;
  try {
    parsed = JSON.parse(fs.readFileSync(filePath, 'utf8'));
  } catch (error) {
    throw registryError(`Cannot read chain registry ${filePath}: ${(error as Error).message}`, error);
  }
  return createChainRegistry(parsed as RegistryFile);
}
