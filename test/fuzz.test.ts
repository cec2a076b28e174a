import fc from 'fast-check';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_STATUS } from '../src/domain/app-error.ts';
import { quoteRequestBody } from './support/fixtures.ts';
import {
  hasValidIdempotencyKey,
  NUM_RUNS,
  OPERATIONS,
  type Operation,
  requestArbitraries,
  type Schema,
  TABLES,
  WITH_STATUS,
} from './support/fuzz-requests.ts';
import { type Harness, startHarness } from './support/harness.ts';

/**
 * Property-based tests over every endpoint of the OpenAPI document the running server publishes. Bodies, query
 * strings, path parameters and headers are generated from the operation's own JSON schemas (valid-ish values,
 * boundaries, wrong types, extra fields, huge and unicode strings, nulls) mixed with raw garbage. Properties:
 *   1. never a 5xx;
 *   2. every non-2xx answer is the documented error body {error, code, details: [{path, message}]} with a
 *      code from the decisions table whose status is the one answered;
 *   3. a rejected request writes nothing (row counts and status histograms of every table are unchanged; the
 *      one documented exception is the stored replay of a request sent with a valid Idempotency-Key).
 */

describe('fuzzing every endpoint from its OpenAPI schemas', () => {
  let h: Harness;
  let doc: {
    paths: Record<string, Record<string, Operation>>;
    components: { schemas: { ErrorBody: Schema } };
  };
  let documentedCodes: string[];
  let mm: { id: string; apiKey: string };
  let lp: { id: string; apiKey: string };
  const known: Record<string, unknown[]> = {};
  /** Known-good bodies per operation; one field mutated at a time gets past the other fields' checks. */
  const seeds: Record<string, Record<string, unknown>[]> = {};
  const credentials: Record<string, string>[] = [];
  let requestsSent = 0;
  const statusesSeen = new Map<string, number>();

  async function fingerprint(): Promise<Record<(typeof TABLES)[number], string>> {
    const out = {} as Record<(typeof TABLES)[number], string>;
    for (const table of TABLES) {
      const q = WITH_STATUS.has(table)
        ? sql<{
            s: string;
            n: number;
          }>`select status as s, count(*) as n from ${sql.table(table)} group by status order by status`
        : sql<{ s: string; n: number }>`select '' as s, count(*) as n from ${sql.table(table)}`;
      const { rows } = await q.execute(h.app.database.db);
      out[table] = rows.map((r) => `${r.s}:${Number(r.n)}`).join(',');
    }
    return out;
  }

  async function send(method: string, url: string, headers: Record<string, string>, body?: string) {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), 10_000);
    try {
      const response = await fetch(`${h.baseUrl}${url}`, {
        method,
        headers,
        body,
        signal: controller.signal,
      });
      if (response.status === 200 && response.headers.get('content-type')?.includes('text/event-stream')) {
        controller.abort(); // an open SSE stream: its status is all this test needs
        return { status: 200, text: '', contentType: 'text/event-stream' };
      }
      return {
        status: response.status,
        text: await response.text(),
        contentType: response.headers.get('content-type') ?? '',
      };
    } finally {
      clearTimeout(timer);
    }
  }

  beforeAll(async () => {
    h = await startHarness({ rateLimits: { apiKey: 1_000_000, session: 1_000_000, ip: 1_000_000 } });
    const res = await h.http('GET', '/openapi.json');
    expect(res.status).toBe(200);
    doc = res.body;
    documentedCodes = doc.components.schemas.ErrorBody.properties.code.enum;
    mm = await h.createAccount('moneyMover');
    lp = await h.createAccount('liquidityProvider');

    // Real ids and values, so valid-ish input reaches the deeper checks (ownership, state, signatures).
    const qrBody = quoteRequestBody(h);
    const qrIds: string[] = [];
    const quotes: any[] = [];
    for (let i = 0; i < 3; i++) {
      const qr = await h.http('POST', '/api/v1/quote-requests', { apiKey: mm.apiKey, body: qrBody });
      expect(qr.status).toBe(201);
      qrIds.push(qr.body.data.quoteId);
      const q = await h.http('POST', '/api/v1/quotes', {
        apiKey: lp.apiKey,
        body: { quoteRequestId: qr.body.data.quoteId, outputAmount: '990000' },
      });
      expect(q.status).toBe(201);
      quotes.push(q.body.data);
    }
    const fresh = await h.http('POST', '/api/v1/quote-requests', { apiKey: mm.apiKey, body: qrBody });
    expect(fresh.status).toBe(201);
    const accepted = await h.http('POST', `/api/v1/quotes/${quotes[0].quoteId}/accept`, {
      apiKey: mm.apiKey,
    });
    expect(accepted.status).toBe(200);
    const signature = await h.offerer.signTypedData(quotes[0].typedData);
    const otherSignature = await h.otherWallet.signTypedData(quotes[1].typedData);
    const usdt = h.registry.chain(h.chainA)!.tokens.find((t) => t.symbol === 'USDT')!.address;
    const addresses = [
      h.offerer.address,
      h.otherWallet.address,
      h.offerer.address.toLowerCase(),
      `0x${'0'.repeat(40)}`,
    ];
    Object.assign(known, {
      recipient: addresses,
      offerer: addresses,
      address: addresses,
      inputToken: [h.usdcA, h.usdcB, usdt],
      outputToken: [h.usdcB, h.usdcA, usdt],
      inputChain: [h.chainA, h.chainB, 'ethereum'],
      outputChain: [h.chainB, h.chainA],
      inputAmount: ['1000000', '1', (10n ** 30n).toString()],
      outputAmount: ['990000', '1'],
      quoteRequestId: qrIds,
      quoteId: quotes.map((q) => q.quoteId),
      orderId: quotes.map((q) => q.orderId),
      id: [...qrIds, ...quotes.map((q) => q.quoteId), ...quotes.map((q) => q.orderId), 'ord_nope'],
      signature: [signature, otherSignature],
      token: [mm.apiKey, 'garbage'],
    });
    Object.assign(seeds, {
      'POST /api/v1/quote-requests': [qrBody],
      'POST /api/v1/quotes': [{ quoteRequestId: fresh.body.data.quoteId, outputAmount: '990000' }],
      'POST /api/v1/quotes/{id}/accept': [{}, { quoteId: quotes[1].quoteId }],
      'POST /api/v1/swaps': [{ orderId: quotes[0].orderId, quoteId: quotes[0].quoteId, signature }],
    });
    credentials.push(
      {},
      { 'x-api-key': mm.apiKey },
      { 'x-api-key': lp.apiKey },
      { authorization: `Bearer ${mm.apiKey}` },
      { 'x-api-key': `${mm.apiKey.slice(0, -2)}zz` },
      { authorization: 'Bearer ' },
      { authorization: 'Basic Zm9vOmJhcg==' },
      { 'x-api-key': mm.apiKey, authorization: 'Bearer nope' },
    );
  });

  afterAll(async () => {
    console.log(
      `fuzz: ${requestsSent} requests, statuses ${JSON.stringify(Object.fromEntries([...statusesSeen].sort()))}`,
    );
    await h?.close();
  });

  function published(): string[] {
    return Object.entries(doc.paths).flatMap(([p, ops]) =>
      Object.keys(ops)
        .filter((m) => ['get', 'post', 'put', 'patch', 'delete'].includes(m))
        .map((m) => `${m.toUpperCase()} ${p}`),
    );
  }

  it('the OpenAPI document publishes every operation listed here, and the documented error codes', () => {
    expect(published()).toEqual(expect.arrayContaining(OPERATIONS.map(([m, p]) => `${m} ${p}`)));
    expect(documentedCodes.sort()).toEqual(Object.keys(ERROR_STATUS).sort());
  });

  async function fuzzOperation(method: string, path: string): Promise<void> {
    const op = doc.paths[path]?.[method.toLowerCase()];
    expect(op, `${method} ${path} is in the document`).toBeDefined();
    const { pathArb, queryArb, bodyArb, headersArb } = requestArbitraries(method, path, op!, {
      known,
      seeds,
      credentials,
    });

    const outcome = await fc.check(
      fc.asyncProperty(pathArb, queryArb, bodyArb, headersArb, async (pathValues, queryString, body, hdr) => {
        let url = path.replace(/\{(\w+)\}/g, (_m, name: string) => String(pathValues[name] ?? 'x'));
        if (queryString) url += `?${queryString}`;
        const headers: Record<string, string> = { ...hdr.extra, ...hdr.credentials };
        if (body !== undefined && hdr.contentType !== 'none') headers['content-type'] = hdr.contentType;
        if (hdr.idempotencyKey !== null) headers['idempotency-key'] = hdr.idempotencyKey;

        const before = await fingerprint();
        const res = await send(method, url, headers, body);
        requestsSent++;
        const label = `${res.status}${res.status >= 400 ? ` ${/"code":"(\w+)"/.exec(res.text)?.[1] ?? ''}` : ''}`;
        statusesSeen.set(label, (statusesSeen.get(label) ?? 0) + 1);
        const context = `${method} ${url.slice(0, 300)} headers=${JSON.stringify(headers).slice(0, 300)} body=${String(body).slice(0, 300)} -> ${res.status} ${res.text.slice(0, 300)}`;

        if (process.env.FUZZ_TRACE && res.text.includes(process.env.FUZZ_TRACE))
          console.log('TRACE', context);
        expect(res.status, context).toBeLessThan(500);
        if (res.status < 200 || res.status >= 300) {
          if (path === '/readyz') return; // its own documented {status, reason} body
          const parsed = JSON.parse(res.text);
          expect(Object.keys(parsed).sort(), context).toEqual(['code', 'details', 'error']);
          expect(typeof parsed.error, context).toBe('string');
          expect(documentedCodes, context).toContain(parsed.code);
          expect(ERROR_STATUS[parsed.code as keyof typeof ERROR_STATUS], context).toBe(res.status);
          expect(Array.isArray(parsed.details), context).toBe(true);
          for (const d of parsed.details) {
            expect(Object.keys(d).sort(), context).toEqual(['message', 'path']);
            expect(typeof d.path, context).toBe('string');
            expect(typeof d.message, context).toBe('string');
          }
          const after = await fingerprint();
          if (hasValidIdempotencyKey(headers) && after.idempotency_keys !== before.idempotency_keys) {
            // Documented: a response below 500 to a request with a fresh key is stored for replay.
            const { rows } = await sql<{ n: number }>`select count(*) as n from idempotency_keys`.execute(
              h.app.database.db,
            );
            expect(Number(rows[0]!.n), context).toBe(Number(before.idempotency_keys.split(':')[1]) + 1);
            after.idempotency_keys = before.idempotency_keys;
          }
          expect(after, context).toEqual(before);
        }
      }),
      {
        numRuns: NUM_RUNS,
        seed: process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : undefined,
        endOnFailure: true,
      },
    );
    if (outcome.failed) {
      // fast-check's own report prints the whole counterexample (up to 70 KB strings): keep it readable.
      const error = outcome.errorInstance as Error | undefined;
      throw new Error(
        `property failed after ${outcome.numRuns} runs (seed ${outcome.seed}, path ${outcome.counterexamplePath}): ${String(error?.message ?? error).slice(0, 2_000)}`,
      );
    }
  }

  it('a URL and headers over 16 KiB (refused by the HTTP parser, before any route) get the documented body', async () => {
    const res = await send('GET', `/api/public/orders?address=${'a'.repeat(20_000)}`, {});
    expect(res.status).toBe(400);
    expect(JSON.parse(res.text)).toEqual({
      error: 'the URL and headers are larger than 16 KiB',
      code: 'VALIDATION_ERROR',
      details: [{ path: 'headers', message: 'the URL and headers are larger than 16 KiB' }],
    });
  });

  it.each(OPERATIONS)(
    '%s %s: no 5xx, documented errors, rejected writes change nothing',
    (method, path) => fuzzOperation(method, path),
    120_000,
  );

  it('every other published operation: the same properties', async () => {
    const listed = new Set(OPERATIONS.map(([m, p]) => `${m} ${p}`));
    const others = published().filter((op) => !listed.has(op));
    for (const op of others) {
      const [method, path] = op.split(' ') as [string, string];
      await fuzzOperation(method, path);
    }
  }, 240_000);
});
