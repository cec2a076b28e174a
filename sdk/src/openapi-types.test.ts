import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CLIENT_TYPES_FILE, generateClientTypes } from '../../scripts/generate-client-types.ts';

describe('generated client types', () => {
  it('match the OpenAPI document the server serves and the event catalogue (run `npm run generate:client` when this fails)', async () => {
    const fresh = await generateClientTypes();
    const committed = fs.readFileSync(CLIENT_TYPES_FILE, 'utf8');
    expect(fresh).toContain('"/api/v1/swaps": {');
    expect(fresh).toContain('FerryEvent: {');
    const a = committed.split('\n');
    const b = fresh.split('\n');
    const first = b.findIndex((line, i) => line !== a[i]);
    const where =
      first < 0 && a.length === b.length
        ? 'identical'
        : `sdk/src/openapi-types.ts is stale from line ${(first < 0 ? b.length : first) + 1}: run \`npm run generate:client\``;
    expect(where).toBe('identical');
  });
});
