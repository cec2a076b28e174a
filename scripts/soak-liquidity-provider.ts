/**
 * scripts/soak.ts's liquidity provider: fills deposited orders on the output chain, one transaction at a time,
 * leaving alone the swaps meant to stay unfilled.
 */
import { privateKeyToAccount } from 'viem/accounts';
import { loadArtifact } from '../src/chains/contract-artifacts.ts';
import { ANVIL_KEYS } from '../src/chains/devnet.ts';
import { chainClients } from './soak-chains.ts';
import { type Ctx, type Fail, type SoakHttp, type SwapRecord, sleep } from './soak-traffic.ts';

export const lpWallet = privateKeyToAccount(ANVIL_KEYS[4]);
const fillAbi = loadArtifact('FerryFill').abi;

export function startLiquidityProvider(
  ctx: Ctx,
  api: SoakHttp['api'],
  swaps: Map<string, SwapRecord>,
  fail: Fail,
) {
  const out = ctx.chains[1]!;
  const c = chainClients(out);
  const wallet = c.wallet(lpWallet);
  let running = true;
  let fills = 0;
  const loop = (async () => {
    while (running) {
      const deposited = await api('GET', '/api/v1/orders?status=deposited&pageSize=100', {
        apiKey: ctx.lpKey,
      });
      for (const order of deposited.body?.data?.orders ?? []) {
        const record = swaps.get(order.orderId);
        if (!record || record.leaveUnfilled || record.filled) continue;
        const m = record.typedData.message;
        try {
          const hash = await wallet.writeContract({
            address: out.contracts.fill,
            abi: fillAbi,
            functionName: 'fill',
            args: [
              order.blockchainOrderId,
              m.outputToken,
              BigInt(m.outputAmount),
              m.recipient,
              BigInt(m.fillDeadline),
            ],
          });
          await c.public.waitForTransactionReceipt({ hash });
          record.filled = true;
          fills++;
        } catch (error) {
          fail(`LP fill of ${order.orderId} failed: ${String(error).slice(0, 300)}`);
          record.filled = true; // never retry a broken fill in a loop
        }
      }
      await sleep(300);
    }
  })();
  return {
    get fills() {
      return fills;
    },
    async stop() {
      running = false;
      await loop;
    },
  };
}
