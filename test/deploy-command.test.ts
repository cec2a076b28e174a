import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createPublicClient, getAddress, type Hex, http } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadChainRegistryFile, type RegistryFile } from '../src/chains/chain-registry.ts';
import { loadArtifact } from '../src/chains/contract-artifacts.ts';
import { deployLz, lzChainClient } from '../src/chains/layerzero/lz-chain-client.ts';
import type { LzChainDeployment } from '../src/chains/layerzero/lz-chain-deployment.ts';
import { checkFerryAppLocked } from '../src/deploy/ferry-app-lock.ts';
import { type AnvilInstance, startAnvil } from '../src/devnet/anvil-process.ts';
import { DEVNET_DEPLOYER_KEY } from '../src/devnet/devnet.ts';
import { DEVNET_DVN_KEYS, DEVNET_EXECUTOR_KEY, DEVNET_LZ_OWNER_KEY } from '../src/devnet/devnet-layerzero.ts';
import { deployLzChain, wireLzPath } from '../src/devnet/layerzero/lz-deploy.ts';
import { describeBlock, extractBlocks } from './support/doc-blocks.ts';

/**
 * `ferry deploy`, `ferry deploy wire` and `ferry deploy check` exactly as docs/deployment.md shows them, against two
 * anvils started apart, on which deployLzChain stands in for LayerZero's own deployment (with the default paths
 * LayerZero's owner sets up), then the registry file and the lock read back from the chains.
 */
const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const DOC = 'docs/deployment.md';
const CHAIN_IDS = [920001, 920002] as const;
const EIDS = [30901, 30902] as const;

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

let anvils: AnvilInstance[] = [];
let lz: LzChainDeployment[] = [];
let dir: string;
let binDir: string;
let env: Record<string, string>;

/** Runs shell text in the test folder with `ferry` on PATH being this checkout's CLI. */
function sh(script: string, extraEnv: Record<string, string | undefined> = {}): Promise<Run> {
  return new Promise((resolve) => {
    const merged: Record<string, string | undefined> = {
      ...process.env,
      ...env,
      PATH: `${binDir}:${process.env.PATH}`,
      LOG_LEVEL: 'silent',
      // A developer's BASH_ENV/ENV can source an rc file written for interactive shells (one reading an unset PS1
      // under `set -u` fails every step); the reader's commands should run without it.
      BASH_ENV: undefined,
      ENV: undefined,
      ...extraEnv,
    };
    for (const [key, value] of Object.entries(merged)) if (value === undefined) delete merged[key];
    execFile(
      'bash',
      ['--noprofile', '--norc', '-euo', 'pipefail', '-c', script],
      { cwd: dir, env: merged, timeout: 120_000 },
      (error, stdout, stderr) => {
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, stdout, stderr });
      },
    );
  });
}

/** The deploy section's shell blocks, in order, as the reader copies them. */
function deploySteps(): { where: string; code: string }[] {
  const text = fs.readFileSync(path.join(repoRoot, DOC), 'utf8');
  return extractBlocks(DOC, text)
    .filter(
      (b) => b.heading === "Deploying Ferry's contracts" && b.skipReason?.includes('deploy-command.test.ts'),
    )
    .map((b) => ({ where: describeBlock(b), code: b.code }));
}

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ferry-deploy-'));
  binDir = path.join(dir, 'bin');
  fs.mkdirSync(binDir);
  fs.writeFileSync(
    path.join(binDir, 'ferry'),
    `#!/usr/bin/env bash\nexec "${process.execPath}" "${path.join(repoRoot, 'bin', 'ferry.js')}" "$@"\n`,
    { mode: 0o755 },
  );
  anvils = await Promise.all(CHAIN_IDS.map((chainId) => startAnvil({ chainId })));
  lz = await Promise.all(
    anvils.map(async (anvil, i) => {
      const owner = lzChainClient(anvil.rpcUrl, anvil.chainId, DEVNET_LZ_OWNER_KEY);
      const deployment = await deployLzChain({
        deployer: owner,
        eid: EIDS[i] as number,
        dvnKeys: DEVNET_DVN_KEYS,
        executorKey: DEVNET_EXECUTOR_KEY,
      });
      await wireLzPath(owner, deployment, { eid: EIDS[1 - i] as number }, 15n);
      return deployment;
    }),
  );
  const usdc = await Promise.all(
    anvils.map(async (anvil) => {
      const client = lzChainClient(anvil.rpcUrl, anvil.chainId, DEVNET_LZ_OWNER_KEY);
      return (await deployLz(client, 'USDC', loadArtifact('TestStablecoin'), ['USD Coin', 'USDC'])).address;
    }),
  );
  env = { DEPLOYER_PRIVATE_KEY: DEVNET_DEPLOYER_KEY };
  for (const [i, side] of (['A', 'B'] as const).entries()) {
    const deployment = lz[i] as LzChainDeployment;
    Object.assign(env, {
      [`RPC_URL_${side}`]: anvils[i]?.rpcUrl,
      [`LZ_ENDPOINT_${side}`]: deployment.endpoint,
      [`LZ_EID_${side}`]: String(deployment.eid),
      [`LZ_SEND_LIBRARY_${side}`]: deployment.sendUln302,
      [`LZ_RECEIVE_LIBRARY_${side}`]: deployment.receiveUln302,
      [`LZ_EXECUTOR_${side}`]: deployment.executor,
      [`LZ_DVNS_${side}`]: deployment.dvns.map((d) => d.address).join(','),
      [`USDC_${side}`]: usdc[i],
    });
  }
}, 120_000);

afterAll(async () => {
  await Promise.all(anvils.map((anvil) => anvil.stop()));
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

describe('ferry deploy', () => {
  it('refuses bad input in one line naming the variable or flag, before touching a chain', async () => {
    const base = 'ferry deploy --rpc-url "$RPC_URL_A" --name chain-a --out refused.json';
    const cases: [string, Record<string, string | undefined>, string][] = [
      [
        base,
        { DEPLOYER_PRIVATE_KEY: undefined },
        'ferry: give --layerzero-endpoint (LayerZero) or --attester',
      ],
      [
        `${base} --attester "$USDC_A"`,
        { DEPLOYER_PRIVATE_KEY: undefined },
        'ferry: DEPLOYER_PRIVATE_KEY is not set',
      ],
      [
        `${base} --layerzero-endpoint "$LZ_ENDPOINT_A"`,
        {},
        'ferry: --eid is required with --layerzero-endpoint',
      ],
      [
        `${base} --attester "$USDC_A" --layerzero-endpoint "$LZ_ENDPOINT_A"`,
        {},
        'ferry: --attester and --layerzero-endpoint exclude each other',
      ],
      [
        'ferry deploy --name chain-a --out refused.json --attester "$USDC_A"',
        {},
        'ferry: --rpc-url is required',
      ],
      [
        'ferry deploy wire --registry missing.json --chains a,b',
        {},
        'ferry: --registry: Cannot read chain registry',
      ],
    ];
    for (const [script, extraEnv, message] of cases) {
      const run = await sh(script, extraEnv);
      expect(run.code, script).toBe(1);
      expect(run.stderr.trim().split('\n'), script).toHaveLength(1);
      expect(run.stderr, script).toContain(message);
      expect(run.stderr).not.toContain(DEVNET_DEPLOYER_KEY.slice(2));
    }
    expect(fs.existsSync(path.join(dir, 'refused.json'))).toBe(false);
  }, 120_000);

  it('deploys two chains, wires and locks them as docs/deployment.md shows, and the check confirms it', async () => {
    const steps = deploySteps();
    expect(steps.map((s) => s.code.split(' ').slice(0, 3).join(' '))).toEqual([
      'ferry deploy --rpc-url',
      'ferry deploy --rpc-url',
      'ferry deploy wire',
      'ferry deploy check',
    ]);
    const outputs: string[] = [];
    for (const step of steps) {
      const run = await sh(step.code);
      expect(run.stderr, step.where).toBe('');
      expect(run.code, step.where).toBe(0);
      outputs.push(run.stdout);
    }
    const printed = outputs.join('');
    // Neither the key nor the RPC URLs (which may carry provider keys) are printed.
    expect(printed).not.toContain(DEVNET_DEPLOYER_KEY.slice(2));
    for (const anvil of anvils) expect(printed).not.toContain(anvil.rpcUrl);
    expect(outputs[2]).toBe(
      'wired and locked: chain-a, chain-b (no owner, no delegate; peers and verifiers pinned)\n',
    );
    expect(outputs[3]).toBe('chain-a: locked\nchain-b: locked\n');

    const file = JSON.parse(fs.readFileSync(path.join(dir, 'registry.json'), 'utf8')) as RegistryFile;
    expect(file.chains.map((c) => [c.name, c.chainId, c.messenger, c.confirmations])).toEqual([
      ['chain-a', CHAIN_IDS[0], 'layerzero', 15],
      ['chain-b', CHAIN_IDS[1], 'layerzero', 15],
    ]);
    for (const [i, entry] of file.chains.entries()) {
      const deployment = lz[i] as LzChainDeployment;
      expect(entry.rpcUrl).toBe(anvils[i]?.rpcUrl);
      expect(entry.layerzero).toEqual({
        eid: deployment.eid,
        endpoint: deployment.endpoint,
        sendLibrary: deployment.sendUln302,
        receiveLibrary: deployment.receiveUln302,
        executor: deployment.executor,
        requiredDvns: deployment.dvns.map((d) => d.address),
        confirmations: 15,
      });
      expect(entry.tokens).toEqual([{ symbol: 'USDC', address: env[`USDC_${i ? 'B' : 'A'}`], decimals: 6 }]);
      expect(Object.keys(entry.contracts).sort()).toEqual(['escrow', 'fill']);
      const client = createPublicClient({ transport: http(entry.rpcUrl) });
      const escrowGrace = await client.readContract({
        address: entry.contracts.escrow as Hex,
        abi: loadArtifact('FerryEscrow').abi,
        functionName: 'settleGrace',
      });
      expect(escrowGrace).toBe(3600n);
      const startBlock = await client.getTransactionReceipt({
        hash: (
          await client.getBlock({ blockNumber: BigInt(entry.startBlock ?? 0), includeTransactions: true })
        ).transactions[0]?.hash as Hex,
      });
      expect(startBlock.contractAddress && getAddress(startBlock.contractAddress)).toBe(entry.contracts.fill);
    }

    const registry = loadChainRegistryFile(path.join(dir, 'registry.json'));
    for (const chain of registry.chains) expect(await checkFerryAppLocked(chain, registry)).toEqual([]);

    // Locked means locked: wiring again is refused, and the check notices a registry that disagrees with the chain.
    const again = await sh('ferry deploy wire --registry registry.json --chains chain-a,chain-b');
    expect(again.code).toBe(1);
    expect(again.stderr).toBe(
      'ferry: the Ferry app on chain-a is locked already (no owner): it cannot be rewired\n',
    );
    const lied: RegistryFile = {
      chains: file.chains.map((c, i) =>
        i === 0
          ? { ...c, layerzero: { ...(c.layerzero as NonNullable<typeof c.layerzero>), confirmations: 1 } }
          : c,
      ),
    };
    fs.writeFileSync(path.join(dir, 'lied.json'), JSON.stringify(lied));
    const check = await sh('ferry deploy check --registry lied.json');
    expect(check.code).toBe(1);
    expect(check.stdout).toContain('chain-a → chain-b: the send ULN config is');
    expect(check.stdout).toContain('chain-b → chain-a: the receive ULN config is');
    expect(check.stderr).toMatch(
      /^ferry: \d+ problem\(s\): the apps are not wired and locked as the registry says\n$/,
    );

    // The attester method deploys AttesterMessenger, FerryEscrow and FerryFill and needs no wiring.
    const attester = await sh(
      'ferry deploy --rpc-url "$RPC_URL_A" --name chain-c --attester "$USDC_A" --settle-grace 600 --out attester.json',
    );
    expect(attester.stderr).toBe('');
    const [entry] = (JSON.parse(fs.readFileSync(path.join(dir, 'attester.json'), 'utf8')) as RegistryFile)
      .chains;
    expect([entry?.messenger, entry?.layerzero, Object.keys(entry?.contracts ?? {}).sort()]).toEqual([
      'attester',
      undefined,
      ['escrow', 'fill', 'messenger'],
    ]);

    // The protocol fee is fixed in the escrow at deployment, with where it goes; a fee with nowhere to go is refused.
    const nowhere = await sh(
      'ferry deploy --rpc-url "$RPC_URL_A" --name chain-d --attester "$USDC_A" --protocol-fee-bps 25 --out fee.json',
    );
    expect(nowhere.code).toBe(1);
    expect(nowhere.stderr).toBe(
      'ferry: --protocol-fee-bps 25 needs --fee-recipient: the fee must go somewhere\n',
    );
    const feeTo = '0x00000000000000000000000000000000000Fee02';
    const charging = await sh(
      `ferry deploy --rpc-url "$RPC_URL_A" --name chain-d --attester "$USDC_A" --protocol-fee-bps 25 --fee-recipient ${feeTo} --out fee.json`,
    );
    expect(charging.stderr).toBe('');
    const [feeEntry] = (JSON.parse(fs.readFileSync(path.join(dir, 'fee.json'), 'utf8')) as RegistryFile)
      .chains;
    const escrowRead = (functionName: 'protocolFeeBps' | 'feeRecipient') =>
      createPublicClient({ transport: http(anvils[0]?.rpcUrl) }).readContract({
        address: feeEntry?.contracts.escrow as `0x${string}`,
        abi: loadArtifact('FerryEscrow').abi,
        functionName,
      });
    expect(await escrowRead('protocolFeeBps')).toBe(25n);
    expect(await escrowRead('feeRecipient')).toBe(feeTo);
  }, 180_000);

  it('refuses a settle grace below the worst case of a proof on any route, before deploying anything', async () => {
    const lzFlags =
      '--layerzero-endpoint "$LZ_ENDPOINT_A" --eid "$LZ_EID_A" --send-library "$LZ_SEND_LIBRARY_A" ' +
      '--receive-library "$LZ_RECEIVE_LIBRARY_A" --executor "$LZ_EXECUTOR_A" --dvns "$LZ_DVNS_A"';
    const deployer = privateKeyToAccount(DEVNET_DEPLOYER_KEY).address;
    const nonce = () =>
      createPublicClient({ transport: http(anvils[0]?.rpcUrl) }).getTransactionCount({ address: deployer });
    const before = await nonce();
    // Alone: judged against a chain like itself (100 × 12 s + 60 + 60 + 120 = 1440 s).
    const alone = await sh(
      `ferry deploy --rpc-url "$RPC_URL_A" --name chain-g ${lzFlags} --confirmations 100 --block-time 12 --settle-grace 1439 --out alone.json`,
    );
    expect(alone.code).toBe(1);
    expect(alone.stderr).toBe(
      'ferry: --settle-grace 1439 is below the minimum of 1440 s for orders from chain-g filled on a chain like it: ' +
        '100 confirmations × 12 s blocks (chain-g) + 60 s DVN verification + proveAfterSeconds 60 (chain-g) + ' +
        'executeAfterSeconds 120 (chain-g); the grace cannot change once deployed\n',
    );
    expect(fs.existsSync(path.join(dir, 'alone.json'))).toBe(false);
    // Next to chain-b of registry.json (15 confirmations, 12 s blocks by default): the route to it counts.
    const deployed = JSON.parse(fs.readFileSync(path.join(dir, 'registry.json'), 'utf8')) as RegistryFile;
    const onlyB = { chains: deployed.chains.filter((c) => c.name === 'chain-b') };
    fs.writeFileSync(path.join(dir, 'grace.json'), JSON.stringify(onlyB));
    const registryBefore = fs.readFileSync(path.join(dir, 'grace.json'), 'utf8');
    const short = await sh(
      `ferry deploy --rpc-url "$RPC_URL_A" --name chain-g ${lzFlags} --confirmations 1 --block-time 1 --settle-grace 419 --out grace.json`,
    );
    expect(short.code).toBe(1);
    expect(short.stderr).toMatch(
      /^ferry: --settle-grace 419 is below the minimum of 420 s for orders from chain-g filled on chain-b: 15 confirmations × 12 s blocks \(chain-b\)/,
    );
    expect(short.stderr.trim().split('\n')).toHaveLength(1);
    expect(fs.readFileSync(path.join(dir, 'grace.json'), 'utf8')).toBe(registryBefore);
    expect(await nonce()).toBe(before);
    // At the minimum it deploys, and the block time is kept in the entry for the worker's check.
    const enough = await sh(
      `ferry deploy --rpc-url "$RPC_URL_A" --name chain-g ${lzFlags} --confirmations 1 --block-time 1 --settle-grace 420 --out grace.json`,
    );
    expect(enough.stderr).toBe('');
    expect(enough.code).toBe(0);
    const entry = (
      JSON.parse(fs.readFileSync(path.join(dir, 'grace.json'), 'utf8')) as RegistryFile
    ).chains.find((c) => c.name === 'chain-g');
    expect(entry?.blockTimeSeconds).toBe(1);
  }, 180_000);
});
