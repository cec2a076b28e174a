import '@fastify/rate-limit';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, type ErrorDetail } from '../domain/app-error.ts';
import { formatBytes } from '../domain/limit-text.ts';
import { StoreUnavailableError, storeError } from '../store/engine/store-errors.ts';

interface AjvIssue {
  instancePath: string;
  keyword: string;
  message?: string;
  params: Record<string, unknown>;
  parentSchema?: Record<string, unknown>;
}

const LOCATION: Record<string, string> = {
  body: 'body',
  querystring: 'query',
  params: 'params',
  headers: 'headers',
};

/** Turns the validator's issues into `details` whose paths name fields the way clients wrote them. */
export function validationDetails(context: string, issues: readonly AjvIssue[]): ErrorDetail[] {
  const prefix = LOCATION[context] ?? context;
  return issues.map((issue) => {
    let path = prefix + issue.instancePath.replace(/\//g, '.');
    let message = issue.message ?? 'is invalid';
    if (issue.keyword === 'required') {
      path += `.${String(issue.params.missingProperty)}`;
      message = 'is required';
    } else if (issue.keyword === 'additionalProperties') {
      path += `.${String(issue.params.additionalProperty)}`;
      message = 'is not a known field';
    } else if (typeof issue.parentSchema?.['x-message'] === 'string') {
      message = issue.parentSchema['x-message'];
    } else if (issue.keyword === 'enum' && Array.isArray(issue.params.allowedValues)) {
      message = `must be one of: ${issue.params.allowedValues.join(', ')}`;
    }
    return { path, message };
  });
}

function toAppError(
  error: FastifyError & { validation?: AjvIssue[]; validationContext?: string },
  bodyLimitBytes: number,
): AppError | null {
  if (error instanceof AppError) return error;
  if (error.validation) {
    const details = validationDetails(error.validationContext ?? 'body', error.validation);
    return new AppError('VALIDATION_ERROR', 'the request is invalid', details);
  }
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new AppError(
        'PAYLOAD_TOO_LARGE',
        `the request body is larger than ${formatBytes(bodyLimitBytes)}`,
        [{ path: 'body', message: `larger than ${formatBytes(bodyLimitBytes)}` }],
      );
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new AppError('UNSUPPORTED_MEDIA_TYPE', 'send the body as application/json', [
        { path: 'headers.content-type', message: 'must be application/json' },
      ]);
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new AppError('VALIDATION_ERROR', 'the JSON body is empty', [
        { path: 'body', message: 'is required' },
      ]);
  }
  if (error instanceof SyntaxError || error.code === 'FST_ERR_CTP_INVALID_JSON_BODY') {
    return new AppError('VALIDATION_ERROR', 'the body is not valid JSON', [
      { path: 'body', message: 'is not valid JSON' },
    ]);
  }
  const typed = storeError(error);
  if (typed instanceof StoreUnavailableError) {
    return new AppError(
      'SERVICE_UNAVAILABLE',
      'the service is briefly unavailable; retry shortly',
      [],
      { 'retry-after': '2' },
      { cause: typed },
    );
  }
  const status = error.statusCode ?? 500;
  if (status >= 400 && status < 500) {
    return new AppError(status === 404 ? 'NOT_FOUND' : 'VALIDATION_ERROR', error.message, [
      { path: 'request', message: error.message },
    ]);
  }
  return null;
}

export function sendError(reply: FastifyReply, error: AppError): FastifyReply {
  for (const [name, value] of Object.entries(error.headers)) reply.header(name, value);
  return reply
    .code(error.statusCode)
    .send({ error: error.message, code: error.code, details: error.details });
}

/** One place decides every error body; unknown errors are logged with context and answered without internals. */
export function installErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    // The limit the body was held to: BODY_LIMIT_BYTES, unless a route set its own.
    const appError = toAppError(error, request.routeOptions.bodyLimit ?? app.initialConfig.bodyLimit ?? 0);
    if (appError) {
      if (appError.statusCode >= 500) request.log.warn({ err: error }, appError.message);
      return sendError(reply, appError);
    }
    request.log.error(
      { err: error, route: request.routeOptions.url, method: request.method },
      'unhandled error',
    );
    return sendError(reply, new AppError('INTERNAL_ERROR', 'internal error'));
  });
  app.setNotFoundHandler({ preHandler: app.rateLimit() }, (request: FastifyRequest, reply: FastifyReply) =>
    sendError(
      reply,
      new AppError('NOT_FOUND', `no route ${request.method} ${request.url.split('?')[0]}`, [
        { path: 'url', message: 'no such route' },
      ]),
    ),
  );
}
