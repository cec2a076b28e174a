/**
 * Scenario 13: batched proofs under a steady stream, operator-style. Two devnets on 1 s blocks started here (the
 * LayerZero relay as DVNs and executor runs in this process), an operator's registry for them, Ferry with its worker
 * on that registry, the reference LP bot with its defaults (--prove-batch, --prove-after-seconds), 24 swaps about one
 * a second. Reports swap → filled (what the recipient waits), swap → completed (the LP repaid) and the gas of every
 * transaction on both chains while the swaps ran, per order.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createPublicClient, http } from 'viem';
import { DEVNET_WORKER_KEYS, startDevnets } from '../../src/devnet/devnet.ts';
import { devnetRegistryFile } from '../../src/devnet/devnet-registry.ts';
import { DEFAULT_PROVE_AFTER_SECONDS, DEFAULT_PROVE_BATCH } from '../../src/lp/prove-batch-defaults.ts';
import type { BackendRun, ScenarioRow } from '../harness/report.ts';
import { freePort, startFerry } from '../harness/server.ts';
import { allInPerOrder } from './gas-per-order.ts';
import { prepareSettlement } from './settlement-parties.ts';

const SWAPS = 24;
const GAS_TARGET = 300_000;
/** The worker's fallbacks as an operator would set them: well after the bot's batch window. */
const PROVE_AFTER_SECONDS = 30;
const EXECUTE_AFTER_SECONDS = 30;

/** Σ gasUsed of the blocks after `from` up to the chain's head: every transaction mined meanwhile. */
async function gasSince(rpcUrl: string, from: bigint): Promise<{ gas: bigint; blocks: number; txs: number }> {
  const client = createPublicClient({ transport: http(rpcUrl) });
  const head = await client.getBlockNumber();
  let gas = 0n;
  let txs = 0;
  for (let n = from + 1n; n <= head; n++) {
    const block = await client.getBlock({ blockNumber: n });
    gas += block.gasUsed;
    txs += block.transactions.length;
  }
  return { gas, blocks: Number(head - from), txs };
}

/**
 * 13 with the bot's defaults, then 13b with `--prove-batch 1` (each fill proves itself, as before batching) on fresh
 * devnets: the same stream, so the two rows compare gas per order and the recipient's wait side by side.
 */
export async function runBatchSettlement(
  say: (line: string) => void,
  nodeFlags: readonly string[],
): Promise<BackendRun> {
  say(
    `\n== batched proofs (13): ${SWAPS} swaps ~1/s on 1 s blocks, operator registry, LP bot defaults (batch ${DEFAULT_PROVE_BATCH}, ${DEFAULT_PROVE_AFTER_SECONDS} s); 13b --prove-batch 1`,
  );
  const scenarios: ScenarioRow[] = [];
  for (const [id, batch] of [
    ['13', null],
    ['13b', '1'],
  ] as const) {
    // The bot (`ferry lp`) reads LP_PROVE_BATCH from the environment it inherits.
    if (batch) process.env.LP_PROVE_BATCH = batch;
    try {
      const row = await runOnce(id, nodeFlags);
      say(`  ${row.id}  ${row.notes.slice(0, 400)}`);
      scenarios.push(row);
    } finally {
      delete process.env.LP_PROVE_BATCH;
    }
  }
  return {
    backend: 'batched proofs (embedded, worker on, operator registry, 1 s blocks)',
    seed: {},
    scenarios,
  };
}

async function runOnce(id: string, nodeFlags: readonly string[]): Promise<ScenarioRow> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ferry-bench-batch-'));
  const databaseUrl = `sqlite:${path.join(dataDir, 'ferry.sqlite')}`;
  const devnets = await startDevnets({
    dataDir: path.join(dataDir, 'devnets'),
    ports: [await freePort(), await freePort()],
    blockTime: 1,
    // Covers 1 confirmation × 1 s + DVNs + the fallbacks below (settle-grace-rule.ts).
    settleGrace: 120,
  });
  const registry = devnetRegistryFile(devnets);
  const chains = registry.chains.map((c) => ({
    ...c,
    blockTimeSeconds: 1,
    proveAfterSeconds: PROVE_AFTER_SECONDS,
    executeAfterSeconds: EXECUTE_AFTER_SECONDS,
  }));
  const registryFile = path.join(dataDir, 'chains.json');
  fs.writeFileSync(registryFile, JSON.stringify({ chains }));
  let row: ScenarioRow | null = null;
  try {
    const server = await startFerry({
      dataDir,
      databaseUrl,
      nodeFlags,
      chainRegistry: registryFile,
      env: {
        WORKER: 'true',
        RELAYER_PRIVATE_KEY: DEVNET_WORKER_KEYS.relayer,
        ATTESTER_PRIVATE_KEY: DEVNET_WORKER_KEYS.attester,
      },
    });
    try {
      const parties = await prepareSettlement(server, { dataDir, databaseUrl });
      try {
        const rpcs = chains.map((c) => c.rpcUrl);
        const clients = rpcs.map((url) => createPublicClient({ transport: http(url) }));
        const starts = await Promise.all(clients.map((c) => c.getBlockNumber()));
        const r = await parties.run('1 s blocks, batched proofs', SWAPS, 1000, 180_000, 1);
        // Whatever the last batch set off (its delivery) is mined by now: the run waited for every completion.
        const gas = await Promise.all(rpcs.map((url, i) => gasSince(url, starts[i] as bigint)));
        const { total, perOrder } = allInPerOrder(
          gas.map((g) => g.gas),
          r.completed,
        );
        const repaidOk = r.p99Ms - r.filledP50Ms < 60_000;
        row = {
          id,
          name: `batched proofs: ${SWAPS} swaps ~1/s on 1 s blocks, LP bot ${id === '13' ? 'defaults' : '--prove-batch 1'} (swap → completed)`,
          unit: 'swaps',
          rate: r.completed,
          p50Ms: r.p50Ms,
          p99Ms: r.p99Ms,
          cpuPercent: 0,
          peakRssMb: 0,
          ratio: null,
          target: `≤ ${GAS_TARGET.toLocaleString('en')} gas per order all in; LP repaid within 60 s of its fill`,
          pass: r.completed === r.swaps && perOrder <= GAS_TARGET && repaidOk,
          notes:
            `${perOrder.toLocaleString('en')} gas per order all in (${total.toLocaleString('en')} over ${r.completed} orders: ` +
            `${gas.map((g, i) => `${chains[i]?.name} ${g.gas.toLocaleString('en')} in ${g.txs} txs / ${g.blocks} blocks`).join(', ')}); ` +
            `swap → filled p50 ${r.filledP50Ms.toFixed(0)} ms, p99 ${r.filledP99Ms.toFixed(0)} ms; swap → completed p50 ` +
            `${r.p50Ms.toFixed(0)} ms, p99 ${r.p99Ms.toFixed(0)} ms; ${r.completed}/${r.swaps} completed in ${r.seconds.toFixed(0)} s.` +
            `${r.failures.length ? ` Failures: ${r.failures.join('; ')}` : ''}${r.botOutput ? ` LP bot said: ${r.botOutput}` : ''}`,
          raw: { ...r, gas: gas.map((g) => ({ ...g, gas: g.gas.toString() })), gasPerOrder: perOrder },
        };
      } finally {
        await parties.close();
      }
    } finally {
      await server.stop();
    }
  } finally {
    await devnets.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
  if (!row) throw new Error(`scenario ${id} measured nothing`);
  return row;
}
