import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  EXPLORER_SEARCH_SHAPE,
  EXPLORER_SEARCH_SHAPE_TYPES,
  generateExplorerSearchShape,
} from '../scripts/generate-explorer-search.ts';
import { orderSearchShape } from '../src/domain/order-search-shape.ts';

const EXPLORER = new URL('../src/explorer/', import.meta.url);
const explorerFile = (name: string) => fs.readFileSync(new URL(name, EXPLORER), 'utf8');

describe("the explorer's search rules", () => {
  it('are the domain rules compiled (run `npm run generate:explorer` when this fails)', () => {
    const fresh = generateExplorerSearchShape();
    expect(fs.readFileSync(EXPLORER_SEARCH_SHAPE, 'utf8')).toBe(fresh.js);
    expect(fs.readFileSync(EXPLORER_SEARCH_SHAPE_TYPES, 'utf8')).toBe(fresh.dts);
  });

  it('are what the explorer classifies its search box with, and it keeps no rules of its own', () => {
    const format = explorerFile('format.js');
    expect(format).toContain("import { orderSearchShape } from './order-search-shape.js';");
    expect(format).not.toContain('0x[0-9a-fA-F]*$');
    for (const name of fs.readdirSync(EXPLORER)) {
      if (!name.endsWith('.js') || name === 'order-search-shape.js') continue;
      expect(explorerFile(name), name).not.toContain('[A-Za-z0-9_-]{1,64}$/.test');
    }
  });

  it('answer like the domain module in the browser copy', async () => {
    const compiled = (await import(EXPLORER_SEARCH_SHAPE)) as { orderSearchShape: typeof orderSearchShape };
    const texts = [
      ` 0x${'a'.repeat(40)} `,
      `0x${'B'.repeat(64)}`,
      '0x1234',
      'ord_01HZX',
      'not an id',
      '',
      'x'.repeat(65),
    ];
    for (const text of texts) expect(compiled.orderSearchShape(text)).toEqual(orderSearchShape(text));
  });
});
