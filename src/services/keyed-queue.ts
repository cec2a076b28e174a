/** One item waiting in a keyed queue, settled by the batch that writes it. */
export interface Pending<T, R> {
  readonly item: T;
  resolve(result: R): void;
  reject(error: unknown): void;
}

/**
 * Writes that must be judged one after another per key (an LP's quotes on one token, an offerer's requests on
 * one token: each against one balance, under a lock held to its commit) would run at one commit after another.
 * While a write of a key is in flight, the next items of that key wait here and then go together, up to `maxBatch`
 * at a time: `write` judges them in arrival order and settles each. Keys do not wait for each other. A failure
 * `write` lets escape rejects every item of its batch that it had not settled.
 */
export function createKeyedQueue<T, R>(
  maxBatch: number,
  write: (batch: readonly Pending<T, R>[]) => Promise<void>,
): (key: string, item: T) => Promise<R> {
  const queues = new Map<string, Pending<T, R>[]>();

  async function drain(key: string, queue: Pending<T, R>[]): Promise<void> {
    while (queue.length > 0) {
      const batch = queue.splice(0, maxBatch);
      await write(batch).catch((error: unknown) => {
        for (const p of batch) p.reject(error);
      });
    }
    queues.delete(key);
  }

  return (key, item) =>
    new Promise<R>((resolve, reject) => {
      const queue = queues.get(key);
      if (queue) {
        queue.push({ item, resolve, reject });
        return;
      }
      const fresh: Pending<T, R>[] = [{ item, resolve, reject }];
      queues.set(key, fresh);
      void drain(key, fresh);
    });
}
