import type { FastifyBaseLogger, FastifyRequest } from 'fastify';

/**
 * Query parameters whose value may be a credential: `?token=` carries an API key or a session token for browser
 * WebSockets, and any other name that looks like a secret is treated the same way.
 */
const CREDENTIAL_PARAM = /token|key|secret|password|auth|signature|session/i;

/** The URL with the value of every credential-looking query parameter replaced, for logs. */
export function redactQueryCredentials(url: string): string {
  const start = url.indexOf('?');
  if (start === -1) return url;
  const query = url
    .slice(start + 1)
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      const name = eq === -1 ? pair : pair.slice(0, eq);
      let decoded = name;
      try {
        decoded = decodeURIComponent(name);
      } catch {
        // A malformed name is compared as sent.
      }
      return eq !== -1 && CREDENTIAL_PARAM.test(decoded) ? `${name}=[redacted]` : pair;
    })
    .join('&');
  return `${url.slice(0, start)}?${query}`;
}

/** Fastify's request serializer, with credentials taken out of the URL. */
function serializeRequest(request: FastifyRequest) {
  return {
    method: request.method,
    url: redactQueryCredentials(request.url),
    host: request.host,
    remoteAddress: request.ip,
    remotePort: request.socket?.remotePort,
  };
}

/** The server's logger: every request line it writes goes through the redacting serializer, whatever logger came in. */
export function requestLogger(log: FastifyBaseLogger): FastifyBaseLogger {
  return log.child({}, { serializers: { req: serializeRequest } });
}
