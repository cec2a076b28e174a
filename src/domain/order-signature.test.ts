import { hashTypedData, recoverTypedDataAddress } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { describe, expect, it } from 'vitest';
import { canonicalSignature, recoverSigner } from './order-signature.ts';
import { buildOrderTypedData } from './order-typed-data.ts';

const account = privateKeyToAccount(generatePrivateKey());
const typedData = buildOrderTypedData(
  {
    offerer: account.address,
    recipient: account.address,
    inputToken: '0x5FbDB2315678afecb367f032d93F642f64180aa3',
    outputToken: '0x5FbDB2315678afecb367f032d93F642f64180aa3',
    inputAmount: 1_000_000n,
    outputAmount: 990_000n,
    inputChainId: 900001n,
    outputChainId: 900002n,
    filler: account.address,
    nonce: 7n,
    openDeadline: 1_900_000_000n,
    fillDeadline: 1_900_001_800n,
    protocolFee: 1_000n,
    exclusivityDeadline: 1_900_000_060n,
  },
  '0xCf7Ed3AccA5a467e9e704C703E8D87F634fB0Fc9',
);
const N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;

describe('native signature recovery', () => {
  it('agrees with viem on real signatures', async () => {
    for (let i = 0; i < 20; i++) {
      const signer = privateKeyToAccount(generatePrivateKey());
      const data = { ...typedData, message: { ...typedData.message, nonce: String(i) } };
      const signature = await signer.signTypedData(data as never);
      const digest = hashTypedData(data as never);
      expect(recoverSigner(digest, signature)).toBe(signer.address.toLowerCase());
      expect((await recoverTypedDataAddress({ ...(data as object), signature } as never)).toLowerCase()).toBe(
        signer.address.toLowerCase(),
      );
    }
  });

  it('refuses the malleable high-s twin of a valid signature', async () => {
    const signature = await account.signTypedData(typedData as never);
    const s = BigInt(`0x${signature.slice(66, 130)}`);
    const v = Number.parseInt(signature.slice(130), 16);
    const twin = `${signature.slice(0, 66)}${(N - s).toString(16).padStart(64, '0')}${(v === 27 ? 28 : 27).toString(16)}`;
    expect(recoverSigner(hashTypedData(typedData as never), twin as `0x${string}`)).toBeNull();
  });

  it('returns null, never throws, on garbage', () => {
    const digest = hashTypedData(typedData as never);
    expect(recoverSigner(digest, `0x${'00'.repeat(65)}`)).toBeNull();
    expect(recoverSigner(digest, `0x${'ff'.repeat(65)}`)).toBeNull();
    expect(recoverSigner(digest, '0x1234')).toBeNull();
  });
});

describe('canonical signature form', () => {
  it('rewrites EIP-2098 compact and v ∈ {0, 1} signatures to the 65-byte v ∈ {27, 28} form the escrow takes', async () => {
    const signature = await account.signTypedData(typedData as never);
    const digest = hashTypedData(typedData as never);
    const r = signature.slice(2, 66);
    const s = signature.slice(66, 130);
    const v = Number.parseInt(signature.slice(130), 16);
    const yParity = v - 27;
    const lowV = `0x${r}${s}${yParity.toString(16).padStart(2, '0')}` as `0x${string}`;
    const compactS = (BigInt(`0x${s}`) | (BigInt(yParity) << 255n)).toString(16).padStart(64, '0');
    const compact = `0x${r}${compactS}` as `0x${string}`;
    for (const form of [signature, lowV, compact]) {
      expect(canonicalSignature(form)).toBe(signature.toLowerCase());
      expect(recoverSigner(digest, form)).toBe(account.address.toLowerCase());
    }
    expect(canonicalSignature('0x1234')).toBeNull();
  });
});
