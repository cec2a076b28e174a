import { type Address, parseSignature } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadArtifact } from '../chains/contract-artifacts.ts';
import { deployLz, type LzChainClient, lzChainClient, writeLz } from '../chains/layerzero/lz-chain-client.ts';
import { permitTypedData } from '../domain/swap-permit.ts';
import { type AnvilInstance, startAnvil } from './anvil-process.ts';
import { ANVIL_KEYS } from './devnet.ts';
import { assertCircleUsdc, deployDevnetUsdc, USDC_PERMIT_DOMAIN, usdcAbi } from './usdc-devnet.ts';

const CHAIN_ID = 31_337;
const holderKey = ANVIL_KEYS[2];
const holder = privateKeyToAccount(holderKey);
const spender = privateKeyToAccount(ANVIL_KEYS[3]);

describe("Circle's USDC on a devnet (FiatTokenV2_2 behind its proxy, from the npm artifacts)", () => {
  let anvil: AnvilInstance;
  let deployer: LzChainClient;
  let asHolder: LzChainClient;
  let usdc: Address;
  const read = (functionName: string, args: readonly unknown[] = []) =>
    deployer.publicClient.readContract({ address: usdc, abi: usdcAbi, functionName, args });
  const transfer = (to: Address, amount: bigint) =>
    writeLz(asHolder, { address: usdc, abi: usdcAbi, functionName: 'transfer', args: [to, amount] });

  beforeAll(async () => {
    anvil = await startAnvil({ chainId: CHAIN_ID });
    deployer = lzChainClient(anvil.rpcUrl, CHAIN_ID, ANVIL_KEYS[0]);
    asHolder = lzChainClient(anvil.rpcUrl, CHAIN_ID, holderKey);
    usdc = await deployDevnetUsdc({ deployer, admin: lzChainClient(anvil.rpcUrl, CHAIN_ID, ANVIL_KEYS[1]) });
    await writeLz(deployer, {
      address: usdc,
      abi: usdcAbi,
      functionName: 'mint',
      args: [holder.address, 1_000n],
    });
  }, 60_000);
  afterAll(() => anvil?.stop());

  it('is USD Coin, 6 decimals, version "2", minted by the deployer', async () => {
    expect(await read('name')).toBe('USD Coin');
    expect(await read('symbol')).toBe('USDC');
    expect(await read('decimals')).toBe(6);
    expect(await read('version')).toBe('2');
    expect(await read('balanceOf', [holder.address])).toBe(1_000n);
  });

  it('takes an EIP-2612 permit signed under its domain (version "2")', async () => {
    const deadline = BigInt(Math.floor(Date.now() / 1000) + 3600);
    const nonce = (await read('nonces', [holder.address])) as bigint;
    const permit = permitTypedData({
      domain: USDC_PERMIT_DOMAIN,
      chainId: CHAIN_ID,
      token: usdc,
      owner: holder.address,
      spender: spender.address,
      value: 77n,
      nonce,
      deadline,
    });
    const signature = await holder.signTypedData(permit as never);
    const { v, r, s } = parseSignature(signature);
    await writeLz(deployer, {
      address: usdc,
      abi: usdcAbi,
      functionName: 'permit',
      args: [holder.address, spender.address, 77n, deadline, Number(v), r, s],
    });
    expect(await read('allowance', [holder.address, spender.address])).toBe(77n);
  });

  it('refuses transfers to a blacklisted account and while paused, like the real token', async () => {
    const call = (functionName: string, args: readonly unknown[]) =>
      writeLz(deployer, { address: usdc, abi: usdcAbi, functionName, args });
    await call('blacklist', [spender.address]);
    await expect(transfer(spender.address, 1n)).rejects.toThrow(/Blacklistable: account is blacklisted/);
    await call('unBlacklist', [spender.address]);
    await call('pause', []);
    await expect(transfer(spender.address, 1n)).rejects.toThrow(/Pausable: paused/);
    await call('unpause', []);
    await transfer(spender.address, 1n);
    expect(await read('balanceOf', [spender.address])).toBe(1n);
  });

  it("answers the proxy admin's own calls in the proxy, never in the token", async () => {
    const admin = lzChainClient(anvil.rpcUrl, CHAIN_ID, ANVIL_KEYS[1]);
    await expect(
      admin.publicClient.readContract({
        address: usdc,
        abi: usdcAbi,
        functionName: 'balanceOf',
        args: [holder.address],
        account: admin.account,
      }),
    ).rejects.toThrow(/Cannot call fallback function from the proxy admin/);
  });

  it('tells a set-up USDC from a home-made token (a devnet state file from before)', async () => {
    await assertCircleUsdc(deployer.publicClient, usdc, deployer.account);
    const old = await deployLz(deployer, 'USDC', loadArtifact('TestStablecoin'), ['Devnet USD Coin', 'USDC']);
    await expect(assertCircleUsdc(deployer.publicClient, old.address, deployer.account)).rejects.toThrow(
      `devnet USDC ${old.address} is not Circle's FiatTokenV2_2; delete the devnet state file`,
    );
    await expect(assertCircleUsdc(deployer.publicClient, usdc, holder.address)).rejects.toThrow(
      /is not a set-up FiatTokenV2_2; delete the devnet state file/,
    );
  });
});
