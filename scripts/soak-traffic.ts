/**
 * scripts/soak.ts's traffic: the request mix (public and authenticated reads, quote requests, quotes, accepts and
 * full swaps with real EIP-712 signatures) and the loop that drives it, open loop at a rate or closed loop.
 */
import type { Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { ANVIL_KEYS } from '../src/devnet/devnet.ts';
import type { createSoakHttp } from './soak-probes.ts';

export const offerer = privateKeyToAccount(ANVIL_KEYS[2]);
const recipient = privateKeyToAccount(ANVIL_KEYS[3]);
const UNFILLED_SHARE = 0.15;
export const MAX_IN_FLIGHT = 64;

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export interface Ctx {
  mmKey: string;
  lpKey: string;
  chains: {
    name: string;
    chainId: number;
    rpcUrl: string;
    contracts: { escrow: Hex; fill: Hex };
    tokens: { symbol: string; address: Hex }[];
  }[];
}
export interface SwapRecord {
  orderId: string;
  leaveUnfilled: boolean;
  typedData: any;
  filled: boolean;
}
export type SoakHttp = ReturnType<typeof createSoakHttp>;
export type Fail = (message: string) => void;

function quoteRequestBody(ctx: Ctx, amount: string) {
  const [a, b] = ctx.chains;
  return {
    recipient: recipient.address,
    offerer: offerer.address,
    inputToken: a!.tokens.find((t) => t.symbol === 'USDC')!.address,
    outputToken: b!.tokens.find((t) => t.symbol === 'USDC')!.address,
    inputAmount: amount,
    inputChain: a!.name,
    outputChain: b!.name,
  };
}

const randomAmount = () => String(1_000_000 + Math.floor(Math.random() * 1_000_000));

/** The traffic mix over `http`; the swaps it creates are kept in `swaps` for the LP and the verdict. */
export function createTraffic({ api, stats }: SoakHttp, fail: Fail) {
  const swaps = new Map<string, SwapRecord>();
  const knownOrderIds: string[] = [];

  /** Creates a quote request, and optionally quotes, accepts and executes it. Returns how far it got. */
  async function flow(ctx: Ctx, depth: 'request' | 'quote' | 'accept' | 'swap'): Promise<void> {
    const inputAmount = randomAmount();
    const qr = await api('POST', '/api/v1/quote-requests', {
      apiKey: ctx.mmKey,
      body: quoteRequestBody(ctx, inputAmount),
    });
    if (qr.status !== 201 || depth === 'request') return;
    const quote = await api('POST', '/api/v1/quotes', {
      apiKey: ctx.lpKey,
      body: { quoteRequestId: qr.body.data.quoteId, outputAmount: String(BigInt(inputAmount) - 10_000n) },
    });
    if (quote.status !== 201 || depth === 'quote') return;
    const q = quote.body.data;
    const accepted = await api('POST', `/api/v1/quotes/${q.quoteId}/accept`, { apiKey: ctx.mmKey });
    if (accepted.status !== 200 || depth === 'accept') return;
    const signature = await offerer.signTypedData(q.typedData);
    const swap = await api('POST', '/api/v1/swaps', {
      apiKey: ctx.mmKey,
      body: { orderId: q.orderId, quoteId: q.quoteId, signature },
    });
    if (swap.status !== 201) {
      fail(`swap ${q.orderId} -> ${swap.status} ${JSON.stringify(swap.body).slice(0, 200)}`);
      return;
    }
    swaps.set(q.orderId, {
      orderId: q.orderId,
      leaveUnfilled: Math.random() < UNFILLED_SHARE,
      typedData: q.typedData,
      filled: false,
    });
    knownOrderIds.push(q.orderId);
  }

  async function publicRead(): Promise<void> {
    const r = Math.random();
    if (r < 0.5) await api('GET', `/api/public/orders?pageSize=${1 + Math.floor(Math.random() * 50)}`);
    else if (r < 0.8) await api('GET', '/api/public/quotes/recent');
    else if (r < 0.9) await api('GET', '/api/public/chains');
    else await api('GET', `/api/public/orders?address=${offerer.address}`);
  }

  async function authenticatedRead(ctx: Ctx): Promise<void> {
    const r = Math.random();
    if (r < 0.35) await api('GET', '/api/v1/orders?pageSize=20', { apiKey: ctx.mmKey });
    else if (r < 0.6)
      await api('GET', '/api/v1/quote-requests?timeWindow=600&pageSize=20', { apiKey: ctx.mmKey });
    else if (r < 0.8 && knownOrderIds.length > 0) {
      const id = knownOrderIds[Math.floor(Math.random() * knownOrderIds.length)];
      await api('GET', `/api/v1/orders/${id}`, { apiKey: ctx.mmKey });
    } else await api('GET', '/api/v1/quote-requests?status=open&pageSize=20', { apiKey: ctx.lpKey });
  }

  /** One unit of traffic, drawn from the mix. Swaps are paced separately (each one costs three transactions). */
  async function action(ctx: Ctx, allowSwap: boolean): Promise<void> {
    const r = Math.random();
    if (allowSwap) return flow(ctx, 'swap');
    if (r < 0.45) return publicRead();
    if (r < 0.75) return authenticatedRead(ctx);
    if (r < 0.87) return flow(ctx, 'request');
    if (r < 0.95) return flow(ctx, 'quote');
    return flow(ctx, 'accept');
  }

  return { swaps, drive: driver(stats, action) };
}

/** The loop that drives `action`, counting requests in `stats`. */
function driver(stats: SoakHttp['stats'], action: (ctx: Ctx, allowSwap: boolean) => Promise<void>) {
  /** Runs the mix for `seconds`: open loop at `rate` requests/s, or closed loop (as fast as it goes) when null. */
  return async function drive(
    ctx: Ctx,
    seconds: number,
    rate: number | null,
    swapsPerSecond: number,
    onTick?: () => void,
  ) {
    const started = performance.now();
    const requestsAtStart = stats.requests;
    const end = started + seconds * 1000;
    const inFlight = new Set<Promise<void>>();
    let skipped = 0;
    let launchedSwaps = 0;
    let launched = 0;
    // Requests per action, learnt as we go, turn the request rate into an action rate.
    const perAction = () => Math.max(1, (stats.requests - requestsAtStart) / Math.max(1, launched));
    let lastTick = performance.now();
    while (performance.now() < end) {
      const now = performance.now();
      const elapsed = (now - started) / 1000;
      const wantSwaps = Math.floor(elapsed * swapsPerSecond);
      const wantActions =
        rate === null ? Number.POSITIVE_INFINITY : Math.floor((elapsed * rate) / perAction());
      while ((launchedSwaps < wantSwaps || launched < wantActions) && inFlight.size < MAX_IN_FLIGHT) {
        const swap = launchedSwaps < wantSwaps;
        if (swap) launchedSwaps++;
        launched++;
        const p: Promise<void> = action(ctx, swap)
          .catch((error) => {
            stats.transportErrors.push(String(error));
          })
          .finally(() => inFlight.delete(p));
        inFlight.add(p);
      }
      if (rate !== null && launched < wantActions && inFlight.size >= MAX_IN_FLIGHT) skipped++;
      if (onTick && now - lastTick >= 1000) {
        lastTick = now;
        onTick();
      }
      await (inFlight.size >= MAX_IN_FLIGHT || rate !== null
        ? sleep(5)
        : Promise.race([...inFlight, sleep(5)]));
    }
    await Promise.all(inFlight);
    const elapsed = (performance.now() - started) / 1000;
    return {
      requestsPerSecond: (stats.requests - requestsAtStart) / elapsed,
      saturatedTicks: skipped,
      swaps: launchedSwaps,
    };
  };
}
