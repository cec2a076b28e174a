import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  EXPLORER_LIFECYCLE,
  EXPLORER_MODULES,
  EXPLORER_OPEN_FILLER,
  EXPLORER_SEARCH_SHAPE,
  generateExplorerModule,
} from '../scripts/generate-explorer-modules.ts';
import * as lifecycle from '../src/domain/lifecycle.ts';
import * as openFiller from '../src/domain/open-filler.ts';
import { orderSearchShape } from '../src/domain/order-search-shape.ts';

const EXPLORER = new URL('../src/explorer/', import.meta.url);
const explorerFile = (name: string) => fs.readFileSync(new URL(name, EXPLORER), 'utf8');

describe("the explorer's search rules", () => {
  it('are the domain rules compiled (run `npm run generate:explorer` when this fails)', () => {
    for (const module of EXPLORER_MODULES) {
      const fresh = generateExplorerModule(module.source);
      expect(fs.readFileSync(module.js, 'utf8'), module.js).toBe(fresh.js);
      expect(fs.readFileSync(module.dts, 'utf8'), module.dts).toBe(fresh.dts);
    }
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

describe("the explorer's status sets", () => {
  it('are the lifecycle compiled: the same terminal statuses and ranks, and no copy of them in the explorer', async () => {
    const compiled = (await import(EXPLORER_LIFECYCLE)) as typeof lifecycle;
    expect(compiled.TERMINAL_ORDER_STATUSES).toEqual(lifecycle.TERMINAL_ORDER_STATUSES);
    for (const status of lifecycle.ORDER_STATUSES) {
      expect(compiled.orderStatusRank(status)).toBe(lifecycle.orderStatusRank(status));
    }
    // A later status never ranks below the one it follows.
    for (const from of lifecycle.ORDER_STATUSES) {
      for (const to of lifecycle.ORDER_STATUSES.filter((s) => lifecycle.canTransitionOrder(from, s))) {
        expect(lifecycle.orderStatusRank(to)).toBeGreaterThan(lifecycle.orderStatusRank(from));
      }
    }
    for (const name of fs.readdirSync(EXPLORER)) {
      if (!name.endsWith('.js') || name === 'lifecycle.js') continue;
      expect(explorerFile(name), name).not.toMatch(/['"]completed['"],\s*['"]failed['"],\s*['"]refunded['"]/);
      expect(explorerFile(name), name).not.toMatch(/refunded:\s*\d/);
    }
  });
});

describe("the explorer's open-filler rule", () => {
  it('is the domain rule compiled, and the explorer holds no zero-address pattern of its own', async () => {
    const compiled = (await import(EXPLORER_OPEN_FILLER)) as typeof openFiller;
    for (const filler of [openFiller.OPEN_FILLER, openFiller.OPEN_FILLER.replace(/0$/, '1'), null, '0x']) {
      expect(compiled.isOpenToAnyFiller(filler)).toBe(openFiller.isOpenToAnyFiller(filler));
    }
    for (const name of fs.readdirSync(EXPLORER)) {
      if (!name.endsWith('.js') || name === 'open-filler.js') continue;
      expect(explorerFile(name), name).not.toMatch(/0x0\{40\}|0x0{40}/);
    }
  });
});
