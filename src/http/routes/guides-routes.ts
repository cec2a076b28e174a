import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Type } from 'typebox';
import { AppError } from '../../domain/app-error.ts';
import type { FerryApp } from '../app-types.ts';
import { etagOf } from '../conditional-get.ts';
import { type StaticAsset, sendStaticAsset } from '../static-asset.ts';

/** The guides (docs/*.md), copied beside the compiled code by the build (scripts/build.mjs). */
const GUIDES_DIR = fileURLToPath(new URL('../../../docs/', import.meta.url));

interface Guide extends StaticAsset {
  readonly file: string;
  readonly title: string;
}

function loadGuides(): Guide[] {
  if (!fs.existsSync(GUIDES_DIR)) return [];
  return fs
    .readdirSync(GUIDES_DIR)
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((file) => {
      const body = fs.readFileSync(path.join(GUIDES_DIR, file));
      const title = /^# (.+)$/m.exec(body.toString('utf8'))?.[1] ?? file;
      return { file, title, body, contentType: 'text/plain; charset=utf-8', etag: etagOf(body) };
    });
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function indexPage(guides: Guide[]): string {
  const items = guides
    .map((g) => `<li><a href="/guides/${g.file}">${escapeHtml(g.title)}</a> <code>${g.file}</code></li>`)
    .join('\n');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8" />
<meta name="viewport" content="width=device-width, initial-scale=1" />
<title>Guides · Ferry</title>
<link rel="icon" href="/explorer/favicon.svg" type="image/svg+xml" />
<link rel="stylesheet" href="/explorer/explorer.css" />
</head>
<body>
<header class="site-header"><div class="wrap header-row">
<a class="brand" href="/"><img class="brand-mark" src="/explorer/favicon.svg" alt="" width="24" height="24" /> Ferry <span class="brand-sub">guides</span></a>
<nav class="nav" aria-label="Ferry"><a href="/">Explorer</a><a href="/docs">API docs</a></nav>
</div></header>
<main class="wrap"><section class="panel"><h1>Guides</h1>
<p class="muted">Markdown, shown as plain text.</p>
<ul class="guides">
${items}
</ul></section></main>
</body>
</html>
`;
}

const CSP = "default-src 'none'; style-src 'self'; img-src 'self'; base-uri 'none'; frame-ancestors 'none'";

/** `GET /guides/`: the list of guides; `GET /guides/{file}`: one guide as text. Hidden from the OpenAPI document. */
export function registerGuidesRoutes(app: FerryApp): void {
  const guides = loadGuides();
  const byFile = new Map(guides.map((g) => [g.file, g]));
  const body = Buffer.from(indexPage(guides));
  const index: StaticAsset = { body, contentType: 'text/html; charset=utf-8', etag: etagOf(body) };

  app.get('/guides/', { schema: { hide: true }, config: { conditionalGet: true } }, (_request, reply) =>
    sendStaticAsset(reply, index, CSP),
  );
  app.get('/guides', { schema: { hide: true } }, (_request, reply) => reply.redirect('/guides/', 301));

  app.get(
    '/guides/:file',
    {
      schema: { hide: true, params: Type.Object({ file: Type.String({ maxLength: 64 }) }) },
      config: { conditionalGet: true },
    },
    (request, reply) => {
      const guide = byFile.get(request.params.file);
      if (!guide) {
        throw new AppError('NOT_FOUND', 'no such guide', [
          { path: 'params.file', message: 'is not a guide' },
        ]);
      }
      return sendStaticAsset(reply, guide, CSP);
    },
  );
}
