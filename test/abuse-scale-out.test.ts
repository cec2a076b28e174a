import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Harness } from './support/harness.ts';
import { signInAt } from './support/sign-in.ts';
import { SseClient, WsClient, wsUrl } from './support/stream-clients.ts';
import { startTwoInstances, type TwoInstances } from './support/two-instances.ts';

if (!process.env.FERRY_TEST_PG) {
  console.warn(
    'SKIPPED test/abuse-scale-out.test.ts: set FERRY_TEST_PG=postgres://postgres@127.0.0.1:5432 to run the two-instance stream-closing tests',
  );
}

/**
 * A credential ended on instance A closes its streams on instance B. Polling is slowed to a minute, so a close
 * within the bound proves the Redis notice, not B's own poll.
 */
describe.skipIf(!process.env.FERRY_TEST_PG)(
  'streams end with their credential on every instance (PostgreSQL + Redis)',
  () => {
    let two: TwoInstances;
    let h: Harness;
    let urlB: string;

    beforeAll(async () => {
      two = await startTwoInstances();
      ({ h, urlB } = two);
    });
    afterAll(async () => {
      await two?.close();
    });

    const closedWithin = (client: WsClient, ms = 1500) =>
      Promise.race([client.closed, new Promise<null>((resolve) => setTimeout(() => resolve(null), ms))]);

    it('logout on A closes the session WebSocket on B (4001) and ends its SSE stream there', async () => {
      const { token } = (await signInAt(h, h.baseUrl, privateKeyToAccount(generatePrivateKey()))).body
        .session;
      const socket = await WsClient.connect(`${wsUrl(urlB)}?token=${encodeURIComponent(token)}`);
      const sse = await SseClient.open(`${urlB}/api/public/stream`, { authorization: `Bearer ${token}` });
      const logout = await h.http('POST', '/auth/logout', { bearer: token });
      expect(logout.status).toBe(200);
      expect(await closedWithin(socket)).toMatchObject({ code: 4001 });
      const ended = await Promise.race([
        sse.waitFor((e) => e.type === 'session.ended'),
        new Promise<null>((resolve) => setTimeout(() => resolve(null), 1500)),
      ]);
      sse.close();
      expect(ended).toMatchObject({ type: 'session.ended' });
    });

    it('revoking a key on A closes its WebSocket on B', async () => {
      const account = await h.app.accounts.createAccount({
        type: 'liquidityProvider',
        name: 'lp',
        address: h.offerer.address,
      });
      const { apiKey, key } = await h.app.accounts.createApiKey(account.id);
      const socket = await WsClient.connect(wsUrl(urlB), { 'x-api-key': apiKey });
      await socket.request({ op: 'subscribe', channels: ['quoteRequests'] }, (f) => f.op === 'subscribed');
      await h.app.accounts.revokeApiKey(key.id);
      expect(await closedWithin(socket)).toMatchObject({ code: 4001 });
    });
  },
);
