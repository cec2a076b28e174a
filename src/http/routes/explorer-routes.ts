import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyReply } from 'fastify';
import { Type } from 'typebox';
import { ConfigError } from '../../config/config.ts';
import { AppError } from '../../domain/app-error.ts';
import type { FerryApp } from '../app-types.ts';
import { etagOf } from '../conditional-get.ts';
import { type StaticAsset, sendStaticAsset } from '../static-asset.ts';

/** The explorer's files: plain ES modules and CSS, served as they are (no build step). */
const EXPLORER_DIR = fileURLToPath(new URL('../../explorer/', import.meta.url));

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
};

/** Same-origin only: the page talks to this API and nothing else, and cannot be framed. */
const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** Read once at startup: a handful of small files, answered from memory. */
function loadAssets(): Map<string, StaticAsset> {
  const assets = new Map<string, StaticAsset>();
  for (const name of fs.readdirSync(EXPLORER_DIR)) {
    const contentType = CONTENT_TYPES[path.extname(name)];
    if (!contentType) continue;
    const body = fs.readFileSync(path.join(EXPLORER_DIR, name));
    assets.set(name, { body, contentType, etag: etagOf(body) });
  }
  return assets;
}

function sendAsset(reply: FastifyReply, asset: StaticAsset) {
  return sendStaticAsset(reply, asset, CONTENT_SECURITY_POLICY);
}

/**
 * The explorer at `GET /` and its assets under `/explorer/`. Hidden from the OpenAPI document (they are not API).
 * Counted in the per-IP limit like every other request: cheap bytes, but an unlimited endpoint is a free amplifier.
 */
export function registerExplorerRoutes(app: FerryApp): void {
  const assets = loadAssets();
  const index = assets.get('index.html');
  if (!index) {
    const message = `explorer: ${EXPLORER_DIR}index.html is missing`;
    throw new ConfigError([message], { message });
  }

  app.get('/', { schema: { hide: true }, config: { conditionalGet: true } }, (_request, reply) =>
    sendAsset(reply, index),
  );

  app.get(
    '/explorer/:file',
    {
      schema: { hide: true, params: Type.Object({ file: Type.String({ maxLength: 64 }) }) },
      config: { conditionalGet: true },
    },
    (request, reply) => {
      const asset = assets.get(request.params.file);
      if (!asset) {
        throw new AppError('NOT_FOUND', 'no such explorer file', [
          { path: 'params.file', message: 'is not an explorer file' },
        ]);
      }
      return sendAsset(reply, asset);
    },
  );
}
