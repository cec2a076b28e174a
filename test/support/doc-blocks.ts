/** How the docs runner treats a fenced block, decided by its language and an optional marker before it. */
export type BlockKind = 'shell' | 'script' | 'typescript' | 'sample' | 'skipped' | 'unhandled';

export interface DocBlock {
  doc: string;
  /** 1-based line of the opening fence. */
  line: number;
  /** The nearest heading above the block, for failure messages. */
  heading: string;
  lang: string;
  code: string;
  kind: BlockKind;
  /** The reason in `<!-- docs-run: skip (reason) -->`. */
  skipReason?: string;
}

const SKIP = /<!--\s*docs-run:\s*skip\s*\(([^)]*)\)\s*-->\s*$/;

const KIND_OF_LANG: Record<string, BlockKind> = {
  sh: 'shell',
  bash: 'shell',
  js: 'script',
  mjs: 'script',
  ts: 'typescript',
  // Response samples: checked to be valid JSON, not run.
  json: 'sample',
};

/**
 * Fenced blocks in document order. A block is skipped only when `<!-- docs-run: skip (reason) -->` is the last thing
 * before its fence; a block of any language the runner does not know is `unhandled`, so it cannot go untested
 * unnoticed.
 */
export function extractBlocks(doc: string, text: string): DocBlock[] {
  const blocks: DocBlock[] = [];
  const lines = text.split('\n');
  let heading = '(top)';
  for (let i = 0; i < lines.length; i++) {
    const current = lines[i] ?? '';
    const title = /^#{1,6}\s+(.*)$/.exec(current);
    if (title?.[1]) heading = title[1];
    const open = /^```([\w-]*)\s*$/.exec(current);
    if (!open) continue;
    const start = i;
    const body: string[] = [];
    for (i++; i < lines.length && !/^```\s*$/.test(lines[i] ?? ''); i++) body.push(lines[i] ?? '');
    const lang = open[1] ?? '';
    const skip = SKIP.exec(lines.slice(0, start).join('\n').trimEnd());
    blocks.push({
      doc,
      line: start + 1,
      heading,
      lang,
      code: body.join('\n'),
      kind: skip ? 'skipped' : (KIND_OF_LANG[lang] ?? 'unhandled'),
      ...(skip ? { skipReason: skip[1]?.trim() ?? '' } : {}),
    });
  }
  return blocks;
}

/** `// name.mjs: …` or `// name.ts` as a script's first line: the doc has the reader save it under that name. */
export const savedName = (block: DocBlock): string | undefined =>
  /^\/\/ ([\w.-]+\.(?:mjs|js|ts))\b/.exec(block.code)?.[1];

export const describeBlock = (block: DocBlock): string =>
  `${block.doc}:${block.line} ("${block.heading}", ${block.lang || 'no language'})`;
