import { EventSource } from 'eventsource';
import WebSocket from 'ws';
import { EVENT_TYPES } from '../../src/domain/events.ts';

/** One received SSE event: `id` is the SSE id field (lastEventId), `body` the parsed `data:` JSON. */
export interface SseEvent {
  id: string;
  type: string;
  body: any;
}

/** Resolves waiters as items arrive; a waiter for something already received resolves at once. */
class Inbox<T> {
  readonly items: T[] = [];
  private waiters: Array<{ test: (item: T) => boolean; resolve: (item: T) => void }> = [];

  push(item: T): void {
    this.items.push(item);
    this.waiters = this.waiters.filter((w) => {
      if (!w.test(item)) return true;
      w.resolve(item);
      return false;
    });
  }

  /** The first item (at or after index `from`) that passes `test`. */
  waitFor(test: (item: T) => boolean, from = 0): Promise<T> {
    const found = this.items.slice(from).find(test);
    if (found !== undefined) return Promise.resolve(found);
    return new Promise((resolve) => this.waiters.push({ test, resolve }));
  }
}

/** A real `eventsource` client that records every event type Ferry sends. */
export class SseClient {
  readonly inbox = new Inbox<SseEvent>();
  private constructor(readonly source: EventSource) {}

  static open(url: string, headers: Record<string, string> = {}): Promise<SseClient> {
    const source = new EventSource(url, {
      fetch: (input, init) => fetch(input, { ...init, headers: { ...init?.headers, ...headers } }),
    });
    const client = new SseClient(source);
    for (const type of [...EVENT_TYPES, 'stream.reset', 'shutdown', 'session.ended']) {
      source.addEventListener(type, (event) => {
        client.inbox.push({ id: event.lastEventId, type, body: JSON.parse(event.data) });
      });
    }
    return new Promise((resolve, reject) => {
      source.onopen = () => resolve(client);
      source.onerror = (error) => {
        if (source.readyState !== source.OPEN) {
          source.close();
          reject(error);
        }
      };
    });
  }

  get events(): SseEvent[] {
    return this.inbox.items;
  }

  waitFor(test: (event: SseEvent) => boolean): Promise<SseEvent> {
    return this.inbox.waitFor(test);
  }

  close(): void {
    this.source.close();
  }
}

/** Refusal of a WebSocket upgrade: the HTTP status and the JSON error body. */
export class UpgradeRefused extends Error {
  constructor(
    readonly status: number,
    readonly body: any,
  ) {
    super(`upgrade refused with ${status}`);
  }
}

/** A real `ws` client that records every frame and its close. */
export class WsClient {
  readonly inbox = new Inbox<any>();
  readonly closed: Promise<{ code: number; reason: string }>;

  private constructor(readonly socket: WebSocket) {
    socket.on('message', (data) => this.inbox.push(JSON.parse(data.toString())));
    this.closed = new Promise((resolve) =>
      socket.on('close', (code, reason) => resolve({ code, reason: reason.toString() })),
    );
  }

  static connect(url: string, headers: Record<string, string> = {}): Promise<WsClient> {
    const socket = new WebSocket(url, { headers });
    const client = new WsClient(socket);
    return new Promise((resolve, reject) => {
      socket.once('open', () => resolve(client));
      socket.once('unexpected-response', (_request, response) => {
        let text = '';
        response.on('data', (chunk: Buffer) => {
          text += chunk.toString();
        });
        response.on('end', () => reject(new UpgradeRefused(response.statusCode ?? 0, JSON.parse(text))));
      });
      socket.once('error', reject);
    });
  }

  get messages(): any[] {
    return this.inbox.items;
  }

  send(message: unknown): void {
    this.socket.send(typeof message === 'string' ? message : JSON.stringify(message));
  }

  /** Sends `message` and waits for the first reply frame after it that passes `test`. */
  async request(message: unknown, test: (frame: any) => boolean): Promise<any> {
    const from = this.inbox.items.length;
    this.send(message);
    return this.inbox.waitFor(test, from);
  }

  /**
   * Every frame received before a ping's pong. The server answers a ping after any frame it queued earlier on
   * this socket, so this is the exact list of what was sent up to now: a test can assert what did NOT arrive.
   */
  async framesUntilPong(): Promise<any[]> {
    const pong = await this.request({ op: 'ping' }, (frame) => frame.op === 'pong');
    return this.inbox.items.slice(0, this.inbox.items.indexOf(pong));
  }

  waitFor(test: (frame: any) => boolean): Promise<any> {
    return this.inbox.waitFor(test);
  }

  close(): Promise<{ code: number; reason: string }> {
    this.socket.close();
    return this.closed;
  }
}

export function wsUrl(baseUrl: string, path = '/ws'): string {
  return `${baseUrl.replace(/^http/, 'ws')}${path}`;
}
