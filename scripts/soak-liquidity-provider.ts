/**
 * scripts/soak.ts's liquidity provider: fills deposited orders on the output chain, one transaction at a time,
 * leaving alone the swaps meant to stay unfilled.
 */
import type { Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { loadArtifact } from '../src/chains/contract-artifacts.ts';
import { proveOptions } from '../src/chains/settlement/prove-options.ts';
import { ANVIL_KEYS } from '../src/devnet/devnet.ts';
import { orderTermsFrom } from '../src/domain/order-typed-data.ts';
import { chainClients } from './soak-chains.ts';
import { type Ctx, type Fail, type SoakHttp, type SwapRecord, sleep } from './soak-traffic.ts';

export const lpWallet = privateKeyToAccount(ANVIL_KEYS[4]);
const appAbi = loadArtifact('FerryApp').abi;
const escrowAbi = loadArtifact('FerryEscrow').abi;

export function startLiquidityProvider(
  ctx: Ctx,
  api: SoakHttp['api'],
  swaps: Map<string, SwapRecord>,
  fail: Fail,
) {
  const [input, out] = [ctx.chains[0]!, ctx.chains[1]!];
  const c = chainClients(out);
  const wallet = c.wallet(lpWallet);
  // Like the reference bot: the fill proves itself when the input chain's escrow is settled by its FerryApp.
  let proving: Promise<boolean> | null = null;
  const proves = () =>
    (proving ??= chainClients(input)
      .public.readContract({ address: input.contracts.escrow, abi: escrowAbi, functionName: 'settler' })
      .then((settler) => (settler as Hex).toLowerCase() === input.contracts.fill.toLowerCase()));
  const fill = async (typedData: any) => {
    const order = orderTermsFrom(typedData);
    const escrow = typedData.domain.verifyingContract as Hex;
    if (!(await proves()))
      return wallet.writeContract({
        address: out.contracts.fill,
        abi: appAbi,
        functionName: 'fill',
        args: [order, escrow],
      });
    const options = proveOptions(1);
    const fee = (await c.public.readContract({
      address: out.contracts.fill,
      abi: appAbi,
      functionName: 'quoteProve',
      args: [[order], escrow, options],
    })) as bigint;
    return wallet.writeContract({
      address: out.contracts.fill,
      abi: appAbi,
      functionName: 'fillAndProve',
      args: [order, escrow, options],
      value: fee,
    });
  };
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
        try {
          const hash = await fill(record.typedData);
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
