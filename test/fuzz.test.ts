import fc from 'fast-check';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_STATUS } from '../src/domain/app-error.ts';
import { quoteRequestBody } from './support/fixtures.ts';
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

type Schema = Record<string, any>;
type Operation = {
  parameters?: { in: string; name: string; schema: Schema }[];
  requestBody?: { content: { 'application/json': { schema: Schema } } };
};

/** Operations the document must publish, one test each; any other published operation is fuzzed by the last test. */
const OPERATIONS: ReadonlyArray<readonly [string, string]> = [
  ['GET', '/healthz'],
  ['GET', '/readyz'],
  ['GET', '/auth/nonce'],
  ['POST', '/auth/verify'],
  ['POST', '/auth/logout'],
  ['GET', '/api/v1/quote-requests'],
  ['POST', '/api/v1/quote-requests'],
  ['GET', '/api/v1/quote-requests/{id}'],
  ['POST', '/api/v1/quotes'],
  ['GET', '/api/v1/quotes'],
  ['GET', '/api/v1/quotes/{id}'],
  ['POST', '/api/v1/quotes/{id}/accept'],
  ['POST', '/api/v1/swaps'],
  ['GET', '/api/v1/orders'],
  ['GET', '/api/v1/orders/{id}'],
  ['GET', '/api/public/orders'],
  ['GET', '/api/public/orders/{id}'],
  ['GET', '/api/public/quotes/recent'],
  ['GET', '/api/public/chains'],
  ['GET', '/api/public/stats'],
  ['GET', '/api/public/stream'],
  ['GET', '/ws'],
];

const NUM_RUNS = Number(process.env.FUZZ_RUNS ?? 120);
const TABLES = [
  'accounts',
  'api_keys',
  'siwe_nonces',
  'sessions',
  'quote_requests',
  'quotes',
  'orders',
  'events',
  'idempotency_keys',
] as const;
const WITH_STATUS = new Set(['quote_requests', 'quotes', 'orders']);

const printable = fc.string({
  unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)),
});
const headerSafe = (max: number) =>
  fc.string({
    unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)),
    maxLength: max,
  });
const unicode = fc.oneof(
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.constantFrom('💸', 'ｆｅｒｒｙ', '\u0000', '\u202e0x00', 'é'.repeat(300), '\ud800'),
);
const huge = fc.constantFrom('a'.repeat(5_000), '9'.repeat(70_000), `0x${'f'.repeat(20_000)}`);
/** Values of the wrong type (or the right type with a hostile shape) for any field. */
const wrong: fc.Arbitrary<unknown> = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.integer(),
  fc.double(),
  fc.constantFrom(0, -1, 1e308, -0, 2 ** 53, Number.MAX_SAFE_INTEGER + 2),
  fc.array(fc.jsonValue({ maxDepth: 2 }), { maxLength: 3 }),
  fc.dictionary(printable, fc.jsonValue({ maxDepth: 1 }), { maxKeys: 3 }),
  fc.constantFrom('', ' ', '0', '-1', '1e6', '0x', 'null', 'true', '[]', '{}', '1.5', '+1', ' 1', '١٢٣'),
  unicode,
  huge,
);

function boundaryValues(schema: Schema): unknown[] {
  const out: unknown[] = [];
  if (schema.type === 'string') {
    const min = schema.minLength ?? 0;
    const max = schema.maxLength ?? 256;
    out.push('a'.repeat(Math.max(0, min - 1)), 'a'.repeat(min), 'a'.repeat(max), 'a'.repeat(max + 1));
    if (schema.pattern?.includes('[1-9][0-9]')) {
      out.push('1', (2n ** 256n - 1n).toString(), (2n ** 256n).toString(), '9'.repeat(78), '9'.repeat(79));
    }
  }
  if (schema.type === 'integer' || schema.type === 'number') {
    const min = schema.minimum ?? -(2 ** 31);
    const max = schema.maximum ?? 2 ** 31;
    out.push(min, max, min - 1, max + 1, min + 0.5, 2 ** 63);
  }
  return out;
}

/** A value the schema accepts (structurally), built by fast-check from the schema itself. */
function validFrom(schema: Schema, name: string, known: Record<string, unknown[]>): fc.Arbitrary<unknown> {
  const knownValues = known[name];
  const base = ((): fc.Arbitrary<unknown> => {
    if (schema.enum) return fc.constantFrom(...schema.enum);
    if (schema.const !== undefined) return fc.constant(schema.const);
    const union = schema.anyOf ?? schema.oneOf;
    if (union) return fc.oneof(...union.map((s: Schema) => validFrom(s, name, known)));
    switch (schema.type) {
      case 'string':
        if (schema.pattern) {
          return fc
            .stringMatching(new RegExp(schema.pattern))
            .filter((s) => s.length <= (schema.maxLength ?? 100_000));
        }
        return fc.string({
          minLength: schema.minLength ?? 0,
          maxLength: Math.min(schema.maxLength ?? 64, 64),
        });
      case 'integer':
        return fc.integer({ min: schema.minimum ?? -(2 ** 31), max: schema.maximum ?? 2 ** 31 });
      case 'number':
        return fc.double({ min: schema.minimum ?? -1e9, max: schema.maximum ?? 1e9, noNaN: true });
      case 'boolean':
        return fc.boolean();
      case 'array':
        return fc.array(anyFrom(schema.items ?? {}, name, known), { maxLength: 4 });
      case 'object':
        return objectFrom(schema, known);
      default:
        return fc.jsonValue({ maxDepth: 2 });
    }
  })();
  return knownValues?.length
    ? fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...knownValues) }, { weight: 1, arbitrary: base })
    : base;
}

/** Mostly valid-ish, sometimes a boundary, sometimes the wrong type. */
function anyFrom(schema: Schema, name: string, known: Record<string, unknown[]>): fc.Arbitrary<unknown> {
  const edges = boundaryValues(schema);
  return fc.oneof(
    { weight: 6, arbitrary: validFrom(schema, name, known) },
    ...(edges.length ? [{ weight: 2, arbitrary: fc.constantFrom(...edges) }] : []),
    { weight: 2, arbitrary: wrong },
  );
}

function objectFrom(schema: Schema, known: Record<string, unknown[]>): fc.Arbitrary<unknown> {
  const props: Record<string, fc.Arbitrary<unknown>> = {};
  for (const [key, sub] of Object.entries<Schema>(schema.properties ?? {}))
    props[key] = anyFrom(sub, key, known);
  const required: string[] = (schema.required ?? []).filter((k: string) => k in props);
  const complete = fc.record(props, { requiredKeys: required as never[] });
  const partial = fc.record(props, { requiredKeys: [] });
  const extra = fc.dictionary(
    fc.oneof(
      printable,
      fc.constantFrom('__proto__', 'constructor', 'prototype', 'status', 'id', 'accountId'),
    ),
    fc.jsonValue({ maxDepth: 2 }),
    { minKeys: 1, maxKeys: 3 },
  );
  return fc.oneof(
    { weight: 6, arbitrary: complete },
    { weight: 2, arbitrary: partial },
    {
      weight: 2,
      arbitrary: fc.tuple(complete, extra).map(([a, b]) => ({ ...(a as object), ...b })),
    },
  );
}

const garbageBody: fc.Arbitrary<string> = fc.oneof(
  fc.string({ maxLength: 200 }),
  fc.string({ unit: 'binary', maxLength: 200 }),
  fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)),
  fc.constantFrom(
    '',
    'null',
    '[]',
    '{}',
    '0',
    '"x"',
    '{',
    '{"a":',
    '{"a":1,}',
    "{'a':1}",
    '{"__proto__":{"isAdmin":true}}',
    '{"constructor":{"prototype":{"x":1}}}',
    '['.repeat(5_000),
    `{"x":"${'a'.repeat(70_000)}"}`,
    `${'{"a":'.repeat(2_000)}1${'}'.repeat(2_000)}`,
    '\uFEFF{}',
    'NaN',
  ),
);

function stringifyQueryValue(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === undefined) return '';
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

/** encodeURIComponent, except that a lone surrogate (which it refuses) is sent as raw bytes of its own. */
function encodePart(s: string): string {
  try {
    return encodeURIComponent(s);
  } catch {
    return `%ED%A0%80${encodeURIComponent(s.replace(/[\ud800-\udfff]/g, ''))}`;
  }
}

function hasValidIdempotencyKey(headers: Record<string, string>): boolean {
  // fetch strips leading and trailing spaces from header values, as any HTTP client may.
  const key = headers['idempotency-key']?.trim();
  return key !== undefined && /^[\x21-\x7e]{1,255}$/.test(key);
}

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

  /** A known-good body with at most one field replaced (by a schema-derived value) or removed. */
  function mutatedSeed(
    bodies: Record<string, unknown>[],
    schema: Schema,
  ): fc.Arbitrary<Record<string, unknown>> {
    const fields = Object.keys(schema.properties ?? {});
    return fc
      .tuple(fc.constantFrom(...bodies), fc.constantFrom(...fields), fc.integer({ min: 0, max: 9 }))
      .chain(([body, field, mode]) => {
        if (mode === 0) return fc.constant(body);
        if (mode === 1) {
          const { [field]: _removed, ...rest } = body;
          return fc.constant(rest);
        }
        return anyFrom(schema.properties[field], field, known).map((value) => ({ ...body, [field]: value }));
      });
  }

  async function fuzzOperation(method: string, path: string): Promise<void> {
    const op = doc.paths[path]?.[method.toLowerCase()];
    expect(op, `${method} ${path} is in the document`).toBeDefined();
    const params = op!.parameters ?? [];
    const query = params.filter((p) => p.in === 'query');
    const pathParams = params.filter((p) => p.in === 'path');
    const bodySchema = op!.requestBody?.content['application/json']?.schema;

    const queryArb = fc.oneof(
      {
        weight: 8,
        arbitrary: fc
          .record(Object.fromEntries(query.map((p) => [p.name, anyFrom(p.schema, p.name, known)])), {
            requiredKeys: [],
          })
          .map((q) => {
            const search = new URLSearchParams();
            for (const [k, v] of Object.entries(q)) search.append(k, stringifyQueryValue(v));
            return search.toString();
          }),
      },
      {
        weight: 2,
        arbitrary: fc.oneof(
          fc.constantFrom(
            '%',
            '%ZZ',
            '&&&',
            'page=1&page=2',
            'page[]=1',
            'pageSize=1&pageSize=abc',
            '=',
            'a=%00',
            `q=${'x'.repeat(8_000)}`,
          ),
          printable.map((s) => encodePart(s)),
        ),
      },
    );
    const pathArb = fc.record(
      Object.fromEntries(
        pathParams.map((p) => [
          p.name,
          fc.oneof(
            { weight: 5, arbitrary: validFrom(p.schema, p.name, known).map((v) => String(v)) },
            {
              weight: 2,
              arbitrary: fc
                .oneof(unicode, fc.constantFrom('..', '%2e%2e', 'a'.repeat(65), 'null', ' ', 'ord_'))
                .map((s) => (s === '..' ? s : encodePart(s))),
            },
          ),
        ]),
      ),
    );
    const bodyArb: fc.Arbitrary<string | undefined> =
      method === 'GET'
        ? fc.constant(undefined)
        : fc.oneof(
            ...(bodySchema
              ? [{ weight: 5, arbitrary: objectFrom(bodySchema, known).map((b) => JSON.stringify(b)) }]
              : []),
            ...(bodySchema && seeds[`${method} ${path}`]
              ? [
                  {
                    weight: 4,
                    arbitrary: mutatedSeed(seeds[`${method} ${path}`]!, bodySchema).map((b) =>
                      JSON.stringify(b),
                    ),
                  },
                ]
              : []),
            { weight: 2, arbitrary: garbageBody },
            { weight: 1, arbitrary: fc.constant(undefined) },
          );
    const headersArb = fc.record({
      credentials: fc.oneof(
        { weight: 4, arbitrary: fc.constant(credentials[1]!) },
        { weight: 3, arbitrary: fc.constant(credentials[2]!) },
        { weight: 3, arbitrary: fc.constantFrom(...credentials) },
      ),
      contentType: fc.oneof(
        { weight: 6, arbitrary: fc.constant('application/json') },
        {
          weight: 3,
          arbitrary: fc.constantFrom(
            'application/json; charset=utf-8',
            'APPLICATION/JSON',
            'text/plain',
            'application/x-www-form-urlencoded',
            'multipart/form-data; boundary=x',
            'application/jsonx',
            'application/json; charset=latin1',
            '',
            'none',
          ),
        },
        { weight: 1, arbitrary: headerSafe(60) },
      ),
      idempotencyKey: fc.option(
        fc.oneof(fc.uuid(), headerSafe(300), fc.constantFrom('', ' ', 'a b', 'k'.repeat(256))),
        { freq: 3 },
      ),
      extra: fc.dictionary(
        fc.constantFrom(
          'accept',
          'x-forwarded-for',
          'last-event-id',
          'accept-encoding',
          'x-request-id',
          'origin',
          'cookie',
          'if-none-match',
          'range',
        ),
        headerSafe(120),
        { maxKeys: 3 },
      ),
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
