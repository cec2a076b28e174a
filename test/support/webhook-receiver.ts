import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedWebhook {
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
  /** The status this request was answered with; null: held open, never answered (a receiver that hangs). */
  readonly answered: number | null;
  /** When its body had arrived, and when its connection closed (null while open): Date.now() of this process. */
  readonly at: number;
  closedAt: number | null;
}

/**
 * A real HTTP receiver on 127.0.0.1: records every request (headers, raw body) and answers with `answer`, which the
 * test may change at any time. `stop` and `start` close and reopen it on the same port (a receiver that is down).
 */
export interface WebhookReceiver {
  readonly url: string;
  readonly port: number;
  readonly received: ReceivedWebhook[];
  /** TCP connections accepted, whether or not a request followed (a refused delivery must not connect at all). */
  readonly connections: number;
  /** The status to answer, or null to never answer (the request stays open until Ferry gives up on it). */
  answer: (request: { id: string; attempt: number }) => number | null;
  stop(): Promise<void>;
  start(): Promise<void>;
}

export async function startReceiver(answer: WebhookReceiver['answer'] = () => 200): Promise<WebhookReceiver> {
  const received: ReceivedWebhook[] = [];
  let connections = 0;
  let server: http.Server | null = null;
  let port = 0;
  const receiver: WebhookReceiver = {
    get url() {
      return `http://127.0.0.1:${port}/hooks`;
    },
    get port() {
      return port;
    },
    received,
    get connections() {
      return connections;
    },
    answer,
    async start() {
      const next = http.createServer((request, response) => {
        const chunks: Buffer[] = [];
        request.on('data', (chunk: Buffer) => chunks.push(chunk));
        request.on('end', () => {
          const headers = Object.fromEntries(
            Object.entries(request.headers).map(([name, value]) => [name, String(value)]),
          );
          const status = receiver.answer({
            id: headers['webhook-id'] ?? '',
            attempt: Number(headers['ferry-webhook-attempt']),
          });
          const record: ReceivedWebhook = {
            headers,
            body: Buffer.concat(chunks).toString('utf8'),
            answered: status,
            at: Date.now(),
            closedAt: null,
          };
          received.push(record);
          response.on('close', () => {
            record.closedAt = Date.now();
          });
          if (status !== null) response.writeHead(status).end();
        });
      });
      next.on('connection', () => {
        connections += 1;
      });
      await new Promise<void>((resolve) => next.listen(port, '127.0.0.1', resolve));
      port = (next.address() as AddressInfo).port;
      server = next;
    },
    async stop() {
      const current = server;
      server = null;
      if (!current) return;
      current.closeAllConnections();
      await new Promise<void>((resolve) => current.close(() => resolve()));
    },
  };
  await receiver.start();
  return receiver;
}
