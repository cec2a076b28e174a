import fs from 'node:fs';
import { pino } from 'pino';
import { parseEther } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp, createWorkerProcess } from '../src/app.ts';
import { createChainRegistry, type RegistryFile } from '../src/chains/chain-registry.ts';
import { ConfigError } from '../src/config/config.ts';
import { DEVNET_ATTESTER_KEY, DEVNET_RELAYER_KEY } from '../src/devnet/devnet.ts';
import { createShutdownRegistry } from '../src/process/shutdown-registry.ts';
import { anvilKnobs } from './support/anvil-knobs.ts';
import { WORKER_ON } from './support/fixtures.ts';
import { type Harness, startHarness } from './support/harness.ts';

const relayer = privateKeyToAccount(DEVNET_RELAYER_KEY);

/**
 * What an operator sees before money moves wrongly: the relayer's balance per chain against its floor (a gauge, a
 * warning, /readyz), and keys that cannot work refused at start.
 */
describe('operator checks of the settlement worker', () => {
  let h: Harness;

  beforeAll(async () => {
    h = await startHarness({ worker: WORKER_ON }, { chains: { relayerMinBalanceEther: 1 } });
  });
  afterAll(async () => {
    await h?.close();
  });

  const scrape = async () => (await fetch(`${h.baseUrl}/metrics`)).text();
  const readyz = async () => {
    const res = await fetch(`${h.baseUrl}/readyz`);
    return { status: res.status, body: (await res.json()) as { status: string; warnings?: any[] } };
  };

  it('a relayer below its floor on one chain: a gauge per chain, and /readyz lists the chain while staying ready', async () => {
    const knobs = anvilKnobs(h.registry.chain(h.chainA)!.rpcUrl);
    const low = parseEther('0.5');
    await knobs.setBalance(relayer.address, low);
    try {
      await h.app.worker!.readRelayerBalances();
      const metrics = await scrape();
      expect(metrics).toContain(`ferry_relayer_balance_wei{chain="${h.chainA}"} ${Number(low)}`);
      expect(metrics).toMatch(new RegExp(`ferry_relayer_balance_wei\\{chain="${h.chainB}"\\} \\d`));
      const ready = await readyz();
      expect(ready.status).toBe(200);
      expect(ready.body).toEqual({
        status: 'ready',
        warnings: [
          {
            chain: h.chainA,
            reason: 'relayer balance below floor',
            relayer: relayer.address,
            balanceWei: low.toString(),
            floorWei: parseEther('1').toString(),
          },
        ],
      });
    } finally {
      await knobs.setBalance(relayer.address, parseEther('10000'));
    }
    await h.app.worker!.readRelayerBalances();
    expect(await readyz()).toEqual({ status: 200, body: { status: 'ready' } });
  });

  it('the same key as relayer and attester: the API refuses to start, naming both variables', async () => {
    const app = await createApp({
      config: { ...h.config, port: 0 },
      registry: h.registry,
      log: pino({ level: 'silent' }),
      workerKeys: { relayer: DEVNET_ATTESTER_KEY, attester: DEVNET_ATTESTER_KEY },
    });
    try {
      const started = app.listen();
      await expect(started).rejects.toBeInstanceOf(ConfigError);
      await expect(started).rejects.toThrow(/RELAYER_PRIVATE_KEY and ATTESTER_PRIVATE_KEY are the same key/);
      await expect(started).rejects.not.toThrow(DEVNET_ATTESTER_KEY.slice(2));
    } finally {
      await app.close();
    }
  });

  it('an escrow some other contract can settle: `ferry worker` refuses to start, naming the chain', async () => {
    // The registry names another contract (here: the escrow itself) as chain A's app: Ferry would run against an
    // escrow whose real settler it does not know.
    const file = JSON.parse(fs.readFileSync(h.registryFile, 'utf8')) as RegistryFile;
    const [a, b] = file.chains;
    const wrong = createChainRegistry({
      chains: [{ ...a!, contracts: { ...a!.contracts, fill: a!.contracts.escrow } }, b!],
    });
    const log = pino({ level: 'silent' });
    const shutdown = createShutdownRegistry(log);
    const worker = { ...h.config.worker, relayerKey: DEVNET_RELAYER_KEY, attesterKey: DEVNET_ATTESTER_KEY };
    try {
      const started = createWorkerProcess({
        config: { ...h.config, worker },
        registry: wrong,
        log,
        shutdown,
      });
      await expect(started).rejects.toThrow(
        new RegExp(
          `the escrow ${a!.contracts.escrow} on chain ${h.chainA} is settled by ${a!.contracts.fill}`,
          'i',
        ),
      );
    } finally {
      await shutdown.close();
    }
  });
});
