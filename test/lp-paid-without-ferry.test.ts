import { type ChildProcess, execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  type Address,
  createPublicClient,
  createWalletClient,
  erc20Abi,
  type Hex,
  http,
  parseEventLogs,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, describe, expect, it } from 'vitest';
import { chainById } from '../src/chains/chain-by-id.ts';
import { loadArtifact } from '../src/chains/contract-artifacts.ts';
import { ANVIL_KEYS, DEVNET_ATTESTER_KEY, DEVNET_RELAYER_KEY } from '../src/devnet/devnet.ts';
import { until } from './support/polling.ts';
import { freePort } from './support/processes.ts';

const ferryBin = fileURLToPath(new URL('../bin/ferry.js', import.meta.url));
const offerer = privateKeyToAccount(ANVIL_KEYS[2]);
const lpKey = ANVIL_KEYS[4];
const lpWallet = privateKeyToAccount(lpKey);
const INPUT = 5_000_000n;

interface RegistryChain {
  name: string;
  chainId: number;
  rpcUrl: string;
  contracts: { escrow: Address; fill: Address };
  tokens: { symbol: string; address: Address }[];
}

/**
 * The promise of settlement through LayerZero, end to end with the compiled CLI in three processes: `ferry devnet`
 * (the chains, LayerZero and the relay playing its DVNs and executor), `ferry start` (API and settlement worker)
 * and `ferry lp` (the reference bot). Ferry's service is killed the moment the LP's fill is on chain; the LP is
 * paid on the input chain all the same, by a message no key of Ferry's can forge or stop.
 */
describe('the operator’s service stopped right after the fill', () => {
  const children: ChildProcess[] = [];
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ferry-lp-paid-'));
  const output: string[] = [];

  function run(args: string[], env: Record<string, string>): ChildProcess {
    const child = spawn(process.execPath, [ferryBin, ...args], {
      env: { ...process.env, DATA_DIR: dir, LOG_LEVEL: 'warn', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stderr?.on('data', (chunk: Buffer) => output.push(`[${args[0]}] ${chunk}`));
    children.push(child);
    return child;
  }

  const cli = (args: string[], env: Record<string, string>) =>
    new Promise<string>((resolve, reject) =>
      execFile(
        process.execPath,
        [ferryBin, ...args],
        { env: { ...process.env, DATA_DIR: dir, LOG_LEVEL: 'silent', ...env }, timeout: 60_000 },
        (error, stdout, stderr) =>
          error ? reject(new Error(`${args.join(' ')}: ${stderr}`)) : resolve(stdout),
      ),
    );

  /** Starts `ferry devnet` and answers the registry it prints (a JSON document on stdout). */
  async function startDevnet(): Promise<{ chains: RegistryChain[] }> {
    const devnet = run(['devnet'], {
      DEVNET_PORT_A: String(await freePort()),
      DEVNET_PORT_B: String(await freePort()),
    });
    let text = '';
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`ferry devnet printed no registry: ${output.join('')}`)),
        120_000,
      );
      devnet.stdout?.on('data', (chunk: Buffer) => {
        text += chunk.toString();
        try {
          const registry = JSON.parse(text.slice(text.indexOf('{')));
          clearTimeout(timer);
          resolve(registry);
        } catch {
          // not the whole document yet
        }
      });
      devnet.once('exit', (code) => reject(new Error(`ferry devnet exited (${code}): ${output.join('')}`)));
    });
  }

  /** SIGTERM first: `ferry devnet` stops its anvils on the way out, where a SIGKILL would leave them running. */
  async function stop(child: ChildProcess): Promise<void> {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    await exited;
    clearTimeout(timer);
  }

  afterAll(async () => {
    await Promise.all(children.map(stop));
    fs.rmSync(dir, { recursive: true, force: true });
  }, 30_000);

  it('the escrow settles to the LP anyway, within a minute', async () => {
    const registry = await startDevnet();
    const [a, b] = registry.chains as [RegistryChain, RegistryChain];
    const registryFile = path.join(dir, 'chains.json');
    fs.writeFileSync(registryFile, JSON.stringify(registry));
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const ferryEnv = {
      CHAIN_REGISTRY: registryFile,
      DATABASE_URL: `sqlite:${path.join(dir, 'ferry.sqlite')}`,
    };
    await cli(['migrate'], ferryEnv);
    const account = async (...args: string[]) =>
      JSON.parse(await cli(['accounts', 'create', ...args, '--json'], ferryEnv)) as { apiKey: string };
    const mm = await account('--type', 'moneyMover', '--name', 'MM');
    const lp = await account('--type', 'liquidityProvider', '--name', 'LP', '--address', lpWallet.address);
    const start = run(['start'], {
      ...ferryEnv,
      PORT: String(port),
      WORKER: 'true',
      RELAYER_PRIVATE_KEY: DEVNET_RELAYER_KEY,
      ATTESTER_PRIVATE_KEY: DEVNET_ATTESTER_KEY,
    });
    const api = async (method: string, route: string, apiKey: string, body?: unknown) => {
      const res = await fetch(`${base}${route}`, {
        method,
        headers: { 'x-api-key': apiKey, ...(body ? { 'content-type': 'application/json' } : {}) },
        ...(body ? { body: JSON.stringify(body) } : {}),
      });
      return (await res.json()) as { data: any };
    };
    await until('ferry start to answer', () =>
      fetch(`${base}/api/public/chains`).then(
        (r) => r.ok,
        () => false,
      ),
    );
    run(
      [
        'lp',
        '--api-url',
        base,
        '--spread-bps',
        '25',
        '--poll-ms',
        '300',
        '--journal',
        path.join(dir, 'lp.sqlite'),
      ],
      {
        FERRY_API_KEY: lp.apiKey,
        LP_PRIVATE_KEY: lpKey,
      },
    );

    const clientOf = (chain: RegistryChain) =>
      createPublicClient({
        chain: chainById(chain.chainId, chain.rpcUrl),
        transport: http(chain.rpcUrl),
        pollingInterval: 50,
      });
    const [chainA, chainB] = [clientOf(a), clientOf(b)];
    const usdcA = a.tokens.find((t) => t.symbol === 'USDC')!.address;
    const usdcB = b.tokens.find((t) => t.symbol === 'USDC')!.address;
    const lpBalance = () =>
      chainA.readContract({
        address: usdcA,
        abi: erc20Abi,
        functionName: 'balanceOf',
        args: [lpWallet.address],
      });
    const lpBefore = await lpBalance();
    const wallet = createWalletClient({
      account: offerer,
      chain: chainById(a.chainId, a.rpcUrl),
      transport: http(a.rpcUrl),
    });
    await chainA.waitForTransactionReceipt({
      hash: await wallet.writeContract({
        address: usdcA,
        abi: erc20Abi,
        functionName: 'approve',
        args: [a.contracts.escrow, INPUT],
      }),
    });

    // The money mover's swap, quoted by the bot.
    const request = await api('POST', '/api/v1/quote-requests', mm.apiKey, {
      offerer: offerer.address,
      recipient: offerer.address,
      inputToken: usdcA,
      outputToken: usdcB,
      inputAmount: INPUT.toString(),
      inputChain: a.name,
      outputChain: b.name,
    });
    const quote = await until('the bot to quote', async () => {
      const listed = await api(
        'GET',
        `/api/v1/quotes?quoteRequestId=${request.data.quoteId}&status=active`,
        mm.apiKey,
      );
      return (listed.data?.quotes as { id: string }[] | undefined)?.[0];
    });
    const envelope = (await api('GET', `/api/v1/quotes/${quote.id}`, mm.apiKey)).data;
    await api('POST', `/api/v1/quotes/${quote.id}/accept`, mm.apiKey);
    const signature = await offerer.signTypedData(envelope.typedData);
    const swap = await api('POST', '/api/v1/swaps', mm.apiKey, {
      orderId: envelope.orderId,
      quoteId: quote.id,
      signature,
    });
    const orderHash = swap.data.blockchainOrderId as Hex;

    // The moment the fill is on the output chain, Ferry's service is killed.
    const fillAbi = loadArtifact('FerryApp').abi;
    await until(
      'the LP’s fill',
      async () =>
        ((await chainB.readContract({
          address: b.contracts.fill,
          abi: fillAbi,
          functionName: 'fillTimes',
          args: [orderHash],
        })) as bigint) > 0n,
      90_000,
    );
    start.kill('SIGKILL');
    await new Promise((resolve) => start.once('exit', resolve));

    await until(
      'the LP to be paid on the input chain',
      async () => (await lpBalance()) === lpBefore + INPUT,
      60_000,
    );
    const escrowAbi = loadArtifact('FerryEscrow').abi;
    expect(
      await chainA.readContract({
        address: a.contracts.escrow,
        abi: escrowAbi,
        functionName: 'orderStatus',
        args: [orderHash],
      }),
    ).toBe(2);
    // Settled by LayerZero's executor (the devnet relay's key), not by any transaction of Ferry's worker.
    const [settled] = await chainA.getContractEvents({
      address: a.contracts.escrow,
      abi: escrowAbi,
      eventName: 'Settled',
      args: { orderHash },
      fromBlock: 0n,
    });
    const tx = await chainA.getTransaction({ hash: settled!.transactionHash });
    expect(tx.from).not.toBe(privateKeyToAccount(DEVNET_RELAYER_KEY).address);
    const receipt = await chainA.getTransactionReceipt({ hash: settled!.transactionHash });
    expect(parseEventLogs({ abi: fillAbi, eventName: 'ProofDelivered', logs: receipt.logs })).toHaveLength(1);
  }, 300_000);
});
