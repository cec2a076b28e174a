import { Ajv } from 'ajv';
import type { FastifySchemaCompiler } from 'fastify';

function makeAjv(coerceTypes: boolean): Ajv {
  const ajv = new Ajv({
    coerceTypes: coerceTypes ? 'array' : false,
    useDefaults: true,
    // Unknown body fields are refused, not dropped: a typo in a money request must not pass silently.
    removeAdditional: false,
    allErrors: true,
    verbose: true,
    strict: false,
  });
  ajv.addKeyword({ keyword: 'x-message', schemaType: 'string' });
  return ajv;
}

/**
 * Bodies are JSON, so types are checked as sent (an amount sent as a number is an error, not coerced);
 * query strings, params and headers arrive as text and are coerced to their declared types.
 */
export function createValidatorCompiler(): FastifySchemaCompiler<unknown> {
  const strictAjv = makeAjv(false);
  const coercingAjv = makeAjv(true);
  return ({ schema, httpPart }) => {
    const ajv = httpPart === 'body' ? strictAjv : coercingAjv;
    return ajv.compile(schema as object);
  };
}
