/**
 * One value, reloaded when the data may have changed (the version moved) and the value is at least `minAgeMs`
 * old, or when it is `maxAgeMs` old whatever the version (a value over a rolling time window drifts without any
 * change). Concurrent callers share one load. Under a steady stream of changes it loads at most once per
 * `minAgeMs`; without changes, once per `maxAgeMs`.
 */
export class ThrottledCache<T> {
  private current: { value: T; version: number; loadedAt: number } | null = null;
  private loading: Promise<T> | null = null;

  constructor(private readonly options: { readonly minAgeMs: number; readonly maxAgeMs: number }) {}

  get(version: number, nowMs: number, load: () => Promise<T>): Promise<T> {
    const current = this.current;
    if (current) {
      const age = nowMs - current.loadedAt;
      const fresh = current.version === version ? age < this.options.maxAgeMs : age < this.options.minAgeMs;
      if (fresh && age >= 0) return Promise.resolve(current.value);
    }
    if (this.loading) return this.loading;
    this.loading = load().then(
      (value) => {
        this.current = { value, version, loadedAt: nowMs };
        this.loading = null;
        return value;
      },
      (error: unknown) => {
        this.loading = null;
        throw error;
      },
    );
    return this.loading;
  }
}
