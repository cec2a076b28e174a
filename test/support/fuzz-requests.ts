import fc from 'fast-check';

/**
 * What test/fuzz.test.ts sends: the operations it must find, and requests generated from an operation's own JSON
 * schemas (valid-ish values, boundaries, wrong types, extra fields, huge and unicode strings) mixed with garbage.
 */
export type Schema = Record<string, any>;
export type Operation = {
  parameters?: { in: string; name: string; schema: Schema }[];
  requestBody?: { content: { 'application/json': { schema: Schema } } };
};

/** Operations the document must publish, one test each; any other published operation is fuzzed by the last test. */
export const OPERATIONS: ReadonlyArray<readonly [string, string]> = [
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

export const NUM_RUNS = Number(process.env.FUZZ_RUNS ?? 120);
export const TABLES = [
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
export const WITH_STATUS = new Set(['quote_requests', 'quotes', 'orders']);

export const printable = fc.string({
  unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)),
});
export const headerSafe = (max: number) =>
  fc.string({
    unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)),
    maxLength: max,
  });
export const unicode = fc.oneof(
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.constantFrom('💸', 'ｆｅｒｒｙ', '\u0000', '\u202e0x00', 'é'.repeat(300), '\ud800'),
);
export const huge = fc.constantFrom('a'.repeat(5_000), '9'.repeat(70_000), `0x${'f'.repeat(20_000)}`);
/** Values of the wrong type (or the right type with a hostile shape) for any field. */
export const wrong: fc.Arbitrary<unknown> = fc.oneof(
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

export function boundaryValues(schema: Schema): unknown[] {
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
export function validFrom(
  schema: Schema,
  name: string,
  known: Record<string, unknown[]>,
): fc.Arbitrary<unknown> {
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
export function anyFrom(
  schema: Schema,
  name: string,
  known: Record<string, unknown[]>,
): fc.Arbitrary<unknown> {
  const edges = boundaryValues(schema);
  return fc.oneof(
    { weight: 6, arbitrary: validFrom(schema, name, known) },
    ...(edges.length ? [{ weight: 2, arbitrary: fc.constantFrom(...edges) }] : []),
    { weight: 2, arbitrary: wrong },
  );
}

export function objectFrom(schema: Schema, known: Record<string, unknown[]>): fc.Arbitrary<unknown> {
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

export const garbageBody: fc.Arbitrary<string> = fc.oneof(
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

export function stringifyQueryValue(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === undefined) return '';
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

/** encodeURIComponent, except that a lone surrogate (which it refuses) is sent as raw bytes of its own. */
export function encodePart(s: string): string {
  try {
    return encodeURIComponent(s);
  } catch {
    return `%ED%A0%80${encodeURIComponent(s.replace(/[\ud800-\udfff]/g, ''))}`;
  }
}

export function hasValidIdempotencyKey(headers: Record<string, string>): boolean {
  // fetch strips leading and trailing spaces from header values, as any HTTP client may.
  const key = headers['idempotency-key']?.trim();
  return key !== undefined && /^[\x21-\x7e]{1,255}$/.test(key);
}
/** A known-good body with at most one field replaced (by a schema-derived value) or removed. */
export function mutatedSeed(
  bodies: Record<string, unknown>[],
  schema: Schema,
  known: Record<string, unknown[]>,
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

/** Known values and bodies from the running server, and credentials to send, that reach past the first checks. */
export interface FuzzContext {
  known: Record<string, unknown[]>;
  seeds: Record<string, Record<string, unknown>[]>;
  credentials: Record<string, string>[];
}

/** Credentials (mostly good ones, so requests get past authentication), content types, idempotency keys, noise. */
function headersArbitrary(credentials: Record<string, string>[]) {
  return fc.record({
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
}

/** The generators of one operation's path values, query string, body and headers. */
export function requestArbitraries(method: string, path: string, op: Operation, context: FuzzContext) {
  const { known, seeds, credentials } = context;
  const params = op.parameters ?? [];
  const query = params.filter((p) => p.in === 'query');
  const pathParams = params.filter((p) => p.in === 'path');
  const bodySchema = op.requestBody?.content['application/json']?.schema;

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
                  arbitrary: mutatedSeed(seeds[`${method} ${path}`]!, bodySchema, known).map((b) =>
                    JSON.stringify(b),
                  ),
                },
              ]
            : []),
          { weight: 2, arbitrary: garbageBody },
          { weight: 1, arbitrary: fc.constant(undefined) },
        );
  const headersArb = headersArbitrary(credentials);
  return { pathArb, queryArb, bodyArb, headersArb };
}
