/**
 * A bounded in-process cache for reference data that is immutable or changes in one direction only
 * (configurations, their versions, grants, active issuers). Only values accepted by `keep` are cached,
 * so a miss or a not-yet-final state is read again next time. Not for anything a revocation must reach.
 */
export class MemoCache<V> {
  private readonly entries = new Map<string, { value: V; expires: number }>();
  /**
   * Bumped by `delete`: a load (of any key) that began before it does not store what it read, which may
   * be the row as it was before the change the delete is for. Deletes are rare (management changes).
   */
  private generation = 0;
  constructor(
    private readonly maxEntries = 10_000,
    private readonly ttlMs = Number.POSITIVE_INFINITY,
  ) {}

  async get(key: string, load: () => Promise<V>, keep: (value: V) => boolean = (v) => v != null): Promise<V> {
    const hit = this.entries.get(key);
    if (hit && hit.expires > Date.now()) return hit.value;
    const generation = this.generation;
    const value = await load();
    if (keep(value) && generation === this.generation) {
      if (this.entries.size >= this.maxEntries)
        this.entries.delete(this.entries.keys().next().value as string);
      this.entries.set(key, { value, expires: Date.now() + this.ttlMs });
    }
    return value;
  }

  delete(key: string) {
    this.entries.delete(key);
    this.generation++;
  }
}
