import { Writable } from 'node:stream';
import { pino } from 'pino';
import { createPublicClient, HttpRequestError, http } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LogRangeTooLargeError } from '../src/chains/log-range-error.ts';
import { type AnvilInstance, startAnvil } from '../src/devnet/anvil-process.ts';
import { MAX_CAUSE_DEPTH } from '../src/domain/cause-walk.ts';
import { loggableError, scrubLogText } from '../src/process/loggable-error.ts';
import { processLoggerOptions } from '../src/process/logger.ts';

/** The errors real RPC calls throw, through the `err` serializer every Ferry process logs with. */
describe('what a log line keeps of an error', () => {
  let anvil: AnvilInstance;
  beforeAll(async () => {
    anvil = await startAnvil({ chainId: 7_332, port: 0 });
  });
  afterAll(async () => {
    await anvil?.stop();
  });

  function lines() {
    const out: string[] = [];
    const stream = new Writable({
      write(chunk, _encoding, done) {
        out.push(String(chunk));
        done();
      },
    });
    return { log: pino(processLoggerOptions({ level: 'info' }), stream), out };
  }

  it('an unreachable RPC whose URL carries a key: the host is logged, the path and query are not', async () => {
    const client = createPublicClient({
      transport: http('http://127.0.0.1:1/v2/SECRETKEY?apikey=ALSOSECRET', { retryCount: 0 }),
    });
    const error = await client.getBlockNumber().catch((e: unknown) => e);
    expect(String((error as Error).message)).toContain('SECRETKEY');
    const { log, out } = lines();
    log.warn({ err: error, orderId: 'ord_1' }, 'settlement step failed; will retry');
    const line = out.join('');
    expect(line).toContain('127.0.0.1:1');
    expect(line).toContain('ord_1');
    expect(line).not.toContain('SECRETKEY');
    expect(line).not.toContain('ALSOSECRET');
  });

  it('a refused transaction: the raw signed bytes are not logged, the reason is', async () => {
    const poor = privateKeyToAccount(generatePrivateKey());
    const raw = await poor.signTransaction({
      chainId: 7_332,
      type: 'eip1559',
      to: poor.address,
      data: `0x${'ab'.repeat(100)}`,
      nonce: 0,
      gas: 100_000n,
      maxFeePerGas: 10n ** 10n,
      maxPriorityFeePerGas: 10n ** 9n,
    });
    const client = createPublicClient({ transport: http(anvil.rpcUrl) });
    const error = await client.sendRawTransaction({ serializedTransaction: raw }).catch((e: unknown) => e);
    expect(String((error as Error).message)).toContain(raw.slice(2, 60));
    const { log, out } = lines();
    log.error({ err: error }, 'broadcast failed');
    const line = out.join('');
    expect(line).not.toContain(raw.slice(2, 60));
    expect(JSON.parse(line).err.details).toMatch(/insufficient funds/i);
    expect(JSON.parse(line).err.rpcHost).toBe(new URL(anvil.rpcUrl).host);
  });

  it('plain errors keep their message and stack, scrubbed', () => {
    const scrubbed = loggableError(
      new Error(`call to https://user:pw@rpc.example/v3/KEY failed: 0x${'1'.repeat(200)}`),
    );
    expect(scrubbed.message).toBe('call to https://rpc.example failed: 0x…(100 bytes)');
    expect(String(scrubbed.stack)).not.toContain('KEY');
    expect(scrubLogText(`tx 0xabc, hash 0x${'f'.repeat(64)}`)).toBe(`tx 0xabc, hash 0x${'f'.repeat(64)}`);
  });

  it("a Ferry error wrapping viem's: its own message, then viem's cut to the host and the node's words", () => {
    const rpc = new HttpRequestError({
      url: 'https://rpc.example/v3/SECRETKEY',
      body: { method: 'eth_getLogs' },
      details: 'query returned more than 10000 results',
    });
    const logged = loggableError(new LogRangeTooLargeError('devnet-a', 1n, 2n, { cause: rpc }));
    expect(logged.type).toBe('LogRangeTooLargeError');
    expect(logged.message).toBe('chain devnet-a: the RPC refused eth_getLogs for blocks 1-2 as too large');
    expect(logged.cause).toMatchObject({
      type: 'HttpRequestError',
      details: 'query returned more than 10000 results',
      rpcHost: 'rpc.example',
    });
    expect(JSON.stringify(logged)).not.toContain('SECRETKEY');
  });

  it('a cycle of causes is logged down to the depth limit, not forever', () => {
    const a = new Error('a');
    const b = new Error('b', { cause: a });
    a.cause = b;
    let depth = 0;
    for (let e: unknown = loggableError(a); e; e = (e as { cause?: unknown }).cause) depth++;
    expect(depth).toBe(MAX_CAUSE_DEPTH);
  });
});
