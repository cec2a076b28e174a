/**
 * Results tagged with the version they were read at. A hit needs the very same version, so a reader never sees
 * data older than the latest committed event; the version is read before the data, so an entry is at least as
 * new as its tag. Bounded: the oldest entry goes first.
 */
export class VersionedCache<T> {
  private readonly entries = new Map<string, { version: number; value: T }>();
  constructor(private readonly maxEntries: number) {}

  async get(key: string, version: number, load: () => Promise<T>): Promise<T> {
    const hit = this.entries.get(key);
    if (hit && hit.version === version) return hit.value;
    const value = await load();
    this.entries.delete(key);
    this.entries.set(key, { version, value });
    if (this.entries.size > this.maxEntries) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
    return value;
  }
}
