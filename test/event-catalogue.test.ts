import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CHANNELS, channelsOf, EVENT_TYPES } from '../src/domain/events.ts';

/**
 * The event catalogue (src/domain/events.ts) is the one list of event types. The SDK's types are generated from it
 * (sdk/src/openapi-types.test.ts) and the WebSocket matches channels from it; the explorer and docs/events.md are
 * written by hand, so this test holds them to it.
 */
const root = path.resolve(import.meta.dirname, '..');
const explorerDir = path.join(root, 'src', 'explorer');

function scriptsUnder(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return scriptsUnder(full);
    return entry.name.endsWith('.js') ? [full] : [];
  });
}

// Every quoted string that looks like an event type (`order.created`), with whether it is a `case` label.
const EVENT_LITERAL = /(case\s+)?['"`]((?:quoteRequest|quote|order)\.[A-Za-z]+)['"`]/g;

describe('the event catalogue', () => {
  it('puts every event on the public channel: the SSE stream, the same feed, sends every event', () => {
    const missing = EVENT_TYPES.filter((type) => !channelsOf(type).includes('public'));
    expect(missing).toEqual([]);
  });

  it('is followed by the explorer: it listens to every type, names each in the feed, and knows no other', () => {
    const listened = new Set<string>();
    const named = new Set<string>();
    const unknown: string[] = [];
    for (const file of scriptsUnder(explorerDir)) {
      for (const match of fs.readFileSync(file, 'utf8').matchAll(EVENT_LITERAL)) {
        const type = match[2] ?? '';
        if (!(EVENT_TYPES as readonly string[]).includes(type))
          unknown.push(`${path.basename(file)}: ${type}`);
        (match[1] ? named : listened).add(type);
      }
    }
    expect(listened.size).toBeGreaterThan(0);
    expect({
      notListenedTo: EVENT_TYPES.filter((type) => !listened.has(type)),
      notNamedInTheFeed: EVENT_TYPES.filter((type) => !named.has(type)),
      unknown,
    }).toEqual({ notListenedTo: [], notNamedInTheFeed: [], unknown: [] });
  });

  it('is documented in docs/events.md: a section per type, and the channels that carry only some types name them', () => {
    const doc = fs.readFileSync(path.join(root, 'docs', 'events.md'), 'utf8');
    const sections = [...doc.matchAll(/^### `([^`]+)`$/gm)].map((m) => m[1]);
    expect(sections).toEqual([...EVENT_TYPES]);
    const partial = CHANNELS.filter((channel) =>
      EVENT_TYPES.some((type) => !channelsOf(type).includes(channel)),
    );
    expect(partial.length).toBeGreaterThan(0);
    for (const channel of partial) {
      const row = doc.split('\n').find((line) => line.startsWith(`| \`${channel}\``));
      expect(row, `docs/events.md has no row for the ${channel} channel`).toBeDefined();
      const carried = EVENT_TYPES.filter((type) => channelsOf(type).includes(channel));
      const listed = [...(row ?? '').matchAll(/`((?:quoteRequest|quote|order)\.[A-Za-z]+)`/g)].map(
        (m) => m[1],
      );
      expect(listed, `the ${channel} row of docs/events.md`).toEqual(carried);
    }
  });
});
