import type { FastifyBaseLogger } from 'fastify';
import type { Redis } from 'ioredis';
import type { Clock } from '../domain/clock.ts';
import type { Principal } from '../domain/principal.ts';
import { createSerialRun } from '../process/serial-run.ts';
import type { FerryDatabase } from '../store/engine/database.ts';
import { liveCredentialIds } from '../store/tables/sessions-store.ts';
import { subscribeNotices } from './event-notices.ts';

const BATCH = 500;

/**
 * Ends streams whose credential ends: logout, the per-address session cap, session expiry, API key revocation.
 * The database says what is live, so every way a credential ends is covered, whichever process ended it (the CLI
 * too). A check runs every poll; a local end and a notice from another instance (Redis) run one at once.
 */
export interface CredentialWatch {
  /** Calls `onEnded` once when the principal's credential is no longer live. Returns the unwatch function. */
  watch(principal: Principal, onEnded: () => void): () => void;
  /** Checks every watched credential now. */
  check(): void;
  start(): void;
  stop(): Promise<void>;
}

interface Watched {
  readonly method: Principal['method'];
  readonly listeners: Set<() => void>;
}

export function createCredentialWatch(options: {
  database: FerryDatabase;
  clock: Clock;
  pollMs: number;
  log: FastifyBaseLogger;
}): CredentialWatch {
  const { database, clock, log } = options;
  const watched = new Map<string, Watched>();
  let stopped = false;
  let timer: NodeJS.Timeout | null = null;

  async function checkAll(): Promise<void> {
    const entries = [...watched];
    for (let i = 0; i < entries.length; i += BATCH) {
      const batch = entries.slice(i, i + BATCH);
      const ids = (method: Principal['method']) =>
        batch.filter(([, entry]) => entry.method === method).map(([id]) => id);
      const live = await liveCredentialIds(
        database.db,
        { sessions: ids('session'), apiKeys: ids('apiKey') },
        clock.now(),
      );
      for (const [id, entry] of batch) {
        if (live.has(id) || watched.get(id) !== entry) continue;
        watched.delete(id);
        for (const listener of entry.listeners) {
          try {
            listener();
          } catch (error) {
            log.warn({ err: error }, 'closing a stream of an ended credential failed');
          }
        }
      }
    }
  }

  // Never two checks at once; a request during one asks for one more after it.
  const checks = createSerialRun(checkAll, (error) =>
    log.warn({ err: error }, 'credential check failed; the next poll retries'),
  );

  function check(): void {
    if (stopped || watched.size === 0) return;
    checks.request();
  }

  return {
    watch(principal, onEnded) {
      let entry = watched.get(principal.credentialId);
      if (!entry) {
        entry = { method: principal.method, listeners: new Set() };
        watched.set(principal.credentialId, entry);
      }
      const listeners = entry.listeners;
      listeners.add(onEnded);
      return () => {
        listeners.delete(onEnded);
        if (listeners.size === 0 && watched.get(principal.credentialId)?.listeners === listeners) {
          watched.delete(principal.credentialId);
        }
      };
    },
    check,
    start() {
      timer = setInterval(check, options.pollMs);
      timer.unref();
    },
    async stop() {
      stopped = true;
      if (timer) clearInterval(timer);
      timer = null;
      await checks.stop();
      watched.clear();
    },
  };
}

export function credentialNoticeChannel(keyPrefix: string): string {
  return `${keyPrefix}credentials:ended`;
}

/** Tells every instance that a credential ended here, so each checks its streams now rather than at its poll. */
export function publishCredentialNotice(redis: Redis, keyPrefix: string, log: FastifyBaseLogger): void {
  redis.publish(credentialNoticeChannel(keyPrefix), '1').catch((error: unknown) => {
    log.debug({ err: error }, 'credential notice not published; other instances will poll');
  });
}

/** Calls `onNotice` whenever any instance announces an ended credential. */
export function subscribeCredentialNotices(
  subscriber: Redis,
  keyPrefix: string,
  onNotice: () => void,
): Promise<void> {
  return subscribeNotices(subscriber, credentialNoticeChannel(keyPrefix), onNotice);
}
