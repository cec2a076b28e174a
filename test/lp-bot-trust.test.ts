import type { ChildProcess } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { createPublicClient, createWalletClient, type Hex, http as viemHttp } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadArtifact } from '../src/chains/contract-artifacts.ts';
import { ANVIL_KEYS } from '../src/devnet/devnet.ts';
import { balanceOf, transferToken } from './support/chain-actors.ts';
import { exitOf, spawnFerryLp, stopWithin } from './support/ferry-lp-process.ts';
import { createQuoteRequest, WORKER_ON } from './support/fixtures.ts';
import { type Harness, startHarness } from './support/harness.ts';
import { sleep, until } from './support/polling.ts';

const lpKey = ANVIL_KEYS[4];
const lpWallet = privateKeyToAccount(lpKey);
const deployer = privateKeyToAccount(ANVIL_KEYS[0]);

type ChainView = {
  name: string;
  escrow: string;
  fill: string;
  contracts: { escrow: string; fill: string };
  tokens: { address: string; decimals: number }[];
};

/**
 * Ferry's API in front of the real server, rewriting what /api/public/chains names (everything else passes as
 * it is): the API of a compromised operator.
 */
async function lyingApi(target: string, rewrite: (chains: ChainView[]) => void) {
  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const headers = Object.fromEntries(
      Object.entries(req.headers).filter(([k, v]) => k !== 'host' && typeof v === 'string'),
    ) as Record<string, string>;
    const upstream = await fetch(`${target}${req.url}`, {
      method: req.method ?? 'GET',
      headers,
      ...(chunks.length > 0 ? { body: Buffer.concat(chunks) } : {}),
    });
    let body = Buffer.from(await upstream.arrayBuffer());
    if (req.url?.startsWith('/api/public/chains') && upstream.status === 200) {
      const json = JSON.parse(body.toString());
      rewrite(json.data.chains);
      body = Buffer.from(JSON.stringify(json));
    }
    res.writeHead(upstream.status, { 'content-type': upstream.headers.get('content-type') ?? 'text/plain' });
    res.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe('the reference bot and what it trusts', () => {
  let h: Harness;
  let lp: { id: string; apiKey: string };
  let fakeEscrowA: Hex;
  let fakeFillB: Hex;

  const rpcOf = (name: string) => h.devnets.chains.find((c) => c.name === name)!.rpcUrl;
  async function deploy(chain: string, name: 'FerryEscrow' | 'FerryFill', args: unknown[]): Promise<Hex> {
    const info = h.registry.chain(chain)!;
    const viemChain = {
      id: info.chainId,
      name: chain,
      nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
      rpcUrls: { default: { http: [rpcOf(chain)] } },
    };
    const wallet = createWalletClient({
      account: deployer,
      chain: viemChain,
      transport: viemHttp(rpcOf(chain)),
    });
    const client = createPublicClient({ chain: viemChain, transport: viemHttp(rpcOf(chain)) });
    const artifact = loadArtifact(name);
    const hash = await wallet.deployContract({
      abi: artifact.abi,
      bytecode: artifact.bytecode as Hex,
      args: args as never,
    });
    return (await client.waitForTransactionReceipt({ hash })).contractAddress as Hex;
  }

  /** What the LP wallet has done on both chains: its nonces (any approval or fill moves one). */
  const lpNonces = () =>
    Promise.all(
      [h.chainA, h.chainB].map((name) =>
        createPublicClient({ transport: viemHttp(rpcOf(name)) }).getTransactionCount({
          address: lpWallet.address,
        }),
      ),
    );

  beforeAll(async () => {
    h = await startHarness({ worker: WORKER_ON, rateLimits: { apiKey: 100_000, session: 60, ip: 100_000 } });
    lp = await h.createAccount('liquidityProvider', 'bot', lpWallet.address);
    const chainA = h.registry.chain(h.chainA)!;
    // An escrow of the attacker's: the real app named as its settler, so it looks wired to the real app (and it
    // charges the devnets' protocol fee, 0 bps).
    fakeEscrowA = await deploy(h.chainA, 'FerryEscrow', [chainA.contracts.fill, 3600n, deployer.address, 0n]);
    fakeFillB = await deploy(h.chainB, 'FerryFill', []);
  }, 120_000);
  afterAll(async () => {
    await h?.close();
  });

  /** `ferry lp --once` against `apiUrl`: its exit, and what it wrote to stderr. */
  async function runOnce(apiUrl: string, name: string, args: string[] = []) {
    const child: ChildProcess = spawnFerryLp({
      apiUrl,
      apiKey: lp.apiKey,
      privateKey: lpKey,
      spreadBps: 25,
      journalFile: path.join(h.dataDir, `lp-journal-${name}.sqlite`),
      args: ['--once', ...args],
    });
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const exit = await exitOf(child);
    return { exit, stderr: stderr.trim() };
  }

  const refusals: [string, (chains: ChainView[]) => void, RegExp, string[]?][] = [
    [
      'a fake escrow on the input chain',
      (chains) => {
        chains[0]!.escrow = fakeEscrowA;
        chains[0]!.contracts.escrow = fakeEscrowA;
      },
      /fill contract the API names on chain devnet-a settles escrow 0x[0-9a-fA-F]{40}, not 0x/,
    ],
    [
      'a fake fill contract on the output chain',
      (chains) => {
        chains[1]!.fill = fakeFillB;
        chains[1]!.contracts.fill = fakeFillB;
      },
      /escrow the API names on chain devnet-b .* is settled by 0x[0-9a-fA-F]{40}, neither its fill contract nor its messenger/,
    ],
    [
      'wrong decimals of the output token',
      (chains) => {
        for (const t of chains[1]!.tokens) t.decimals = 18;
      },
      /the API says \w+ on chain devnet-b has 18 decimals; the token says 6/,
    ],
    [
      'a fill contract other than the chains file pins',
      (chains) => {
        chains[1]!.fill = fakeFillB;
        chains[1]!.contracts.fill = fakeFillB;
      },
      /the API's fill contract of chain devnet-b is 0x[0-9a-fA-F]{40}, the chains file says 0x/,
      ['--chains'],
    ],
  ];

  it.each(refusals)(
    'the API names %s: the bot refuses with one line and sends nothing',
    async (_, rewrite, line, flags) => {
      const api = await lyingApi(h.baseUrl, rewrite);
      try {
        const before = await lpNonces();
        const { exit, stderr } = await runOnce(api.url, 'refusal', flags ? [flags[0]!, h.registryFile] : []);
        expect(exit).toBe(1);
        expect(stderr.split('\n')).toHaveLength(1);
        expect(stderr).toMatch(/^ferry lp: /);
        expect(stderr).toMatch(line);
        expect(await lpNonces()).toEqual(before);
        const quotes = await h.http('GET', '/api/v1/quotes?status=active', { apiKey: lp.apiKey });
        expect(quotes.body.data.quotes).toEqual([]);
      } finally {
        await api.close();
      }
    },
    60_000,
  );

  it('the honest API through the same proxy, pinned by the registry file: the bot starts and passes', async () => {
    const api = await lyingApi(h.baseUrl, () => {});
    try {
      const { exit, stderr } = await runOnce(api.url, 'honest', ['--chains', h.registryFile]);
      expect(stderr).toBe('');
      expect(exit).toBe(0);
    } finally {
      await api.close();
    }
  }, 60_000);

  it('one offerer with several requests for most of the inventory holds half of it; another money mover still gets a quote', async () => {
    // The bot's inventory on the output chain: 100 USDC.
    const held = await balanceOf(h, h.chainB, h.usdcB, lpWallet.address);
    await transferToken(h, h.chainB, h.usdcB, lpWallet, deployer.address, held - 100_000_000n);
    const mm = await h.createAccount('moneyMover', 'whale');
    const other = await h.createAccount('moneyMover', 'other');
    const child = spawnFerryLp({
      apiUrl: h.baseUrl,
      apiKey: lp.apiKey,
      privateKey: lpKey,
      spreadBps: 25,
      journalFile: path.join(h.dataDir, 'lp-journal-share.sqlite'),
    });
    let out = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
    });
    try {
      const quotesOn = async (apiKey: string, qrId: string) =>
        (await h.http('GET', `/api/v1/quotes?quoteRequestId=${qrId}&status=active`, { apiKey })).body.data
          ?.quotes as unknown[];
      // Three requests of one offerer, 40 USDC each: on the bot's 100, two would leave too little for anyone else.
      const whale: string[] = [];
      for (let i = 0; i < 3; i++)
        whale.push(await createQuoteRequest(h, mm.apiKey, { inputAmount: '40000000' }));
      const quotedOf = async () => {
        const counts = await Promise.all(
          whale.map(async (id) => (await quotesOn(mm.apiKey, id))?.length ?? 0),
        );
        return counts;
      };
      await until('the bot to quote one of them', async () => (await quotedOf()).some((n) => n > 0)).catch(
        (error) => {
          throw new Error(`${(error as Error).message}\n${out}`);
        },
      );
      const otherQr = await createQuoteRequest(h, other.apiKey, {
        offerer: h.otherWallet.address,
        recipient: h.offerer.address,
        inputAmount: '40000000',
      });
      await until(
        'the bot to quote the other money mover',
        async () => (await quotesOn(other.apiKey, otherQr))?.length,
        15_000,
      );
      // Half of the inventory per offerer: its second and third requests stay unquoted.
      await sleep(2_000);
      expect((await quotedOf()).sort()).toEqual([0, 0, 1]);
    } finally {
      await stopWithin(child, 6_000);
    }
  }, 120_000);
});
