import fs from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * The API reference at /docs is Swagger UI with Ferry's name, icon and a top bar that leads back to the explorer
 * and the guides: @fastify/swagger-ui serves these files under /docs/static/theme/ and links them from its page.
 */
const FAVICON = fs.readFileSync(fileURLToPath(new URL('../explorer/favicon.svg', import.meta.url)));

const TOP_BAR_SCRIPT = `(() => {
  const bar = document.createElement('header');
  bar.className = 'ferry-bar';
  const home = document.createElement('a');
  home.className = 'ferry-brand';
  home.href = '/';
  const icon = document.createElement('img');
  icon.src = '/docs/static/theme/ferry.svg';
  icon.alt = '';
  icon.width = 24;
  icon.height = 24;
  home.append(icon, ' Ferry API');
  const nav = document.createElement('nav');
  nav.setAttribute('aria-label', 'Ferry');
  for (const [text, href] of [['Explorer', '/'], ['Stats', '/#/stats'], ['Guides', '/guides/'], ['openapi.json', '/openapi.json']]) {
    const link = document.createElement('a');
    link.href = href;
    link.textContent = text;
    nav.append(link);
  }
  bar.append(home, nav);
  document.body.prepend(bar);
})();
`;

const TOP_BAR_STYLE = `
.swagger-ui .topbar { display: none; }
.ferry-bar { display: flex; flex-wrap: wrap; align-items: center; gap: 8px 20px; padding: 10px 20px;
  background: #ffffff; border-bottom: 1px solid #dbe1ea; font: 15px/1.5 system-ui, sans-serif; }
.ferry-brand { display: inline-flex; align-items: center; gap: 8px; margin-right: auto; color: #16202c;
  font-weight: 700; font-size: 1.1rem; text-decoration: none; }
.ferry-bar nav { display: flex; flex-wrap: wrap; gap: 4px 16px; }
.ferry-bar nav a { color: #0b5cad; }
.ferry-bar a:focus-visible { outline: 3px solid #f5a524; outline-offset: 2px; }
`;

export const DOCS_THEME = {
  title: 'Ferry API',
  js: [{ filename: 'ferry-bar.js', content: TOP_BAR_SCRIPT }],
  css: [{ filename: 'ferry-bar.css', content: TOP_BAR_STYLE }],
  favicon: [{ filename: 'ferry.svg', rel: 'icon', sizes: 'any', type: 'image/svg+xml', content: FAVICON }],
};
