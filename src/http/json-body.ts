import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';

/**
 * Fastify refuses `content-type: application/json` with an empty body. Clients (and generated SDKs) send that
 * header on every POST, also to actions whose body is optional (accepting a quote): there an empty body is
 * simply no body. Routes that need a body still answer "the JSON body is empty".
 */
export function acceptEmptyJsonBodies(app: FastifyInstance): void {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  // parseAs 'string': the body arrives as text, as the default parser expects it.
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const schema = request.routeOptions.schema?.body;
    if (body === '' && (schema === undefined || Type.IsOptional(schema))) return done(null, undefined);
    return parseJson(request, body as string, done);
  });
}
