import { LRUCache } from "lru-cache";

/**
 * A process cache as the slice that owns it declares it: its name (for diagnostics), bound and entry
 * lifetime. The values live in the `Caches` built by the composition root, not in the module, so each
 * server (and each test server) starts empty and nothing outlives it.
 */
export interface CacheSpec<V> {
  readonly name: string;
  readonly max: number;
  /** Entry lifetime; unset: until evicted or invalidated. */
  readonly ttlMs?: number;
  /** Marks the value type; never set. */
  readonly _value?: V;
}

export const cacheSpec = <V>(name: string, options: { max: number; ttlMs?: number }): CacheSpec<V> => ({
  name,
  ...options,
});

/**
 * A read-through cache over an LRU: a miss loads, and only values `keep` accepts are stored (so a row
 * not yet in its final state is read again next time). `delete` bumps a generation: a load that began
 * before it does not store what it read, which may be the row as it was before the change.
 */
export class ReadThroughCache<V> {
  private readonly lru: LRUCache<string, { value: V }>;
  private generation = 0;

  constructor(spec: CacheSpec<V>) {
    this.lru = new LRUCache({ max: spec.max, ...(spec.ttlMs !== undefined ? { ttl: spec.ttlMs } : {}) });
  }

  async get(key: string, load: () => Promise<V>, keep: (value: V) => boolean = (v) => v != null): Promise<V> {
    const hit = this.lru.get(key);
    if (hit) return hit.value;
    const generation = this.generation;
    const value = await load();
    if (keep(value) && generation === this.generation) this.lru.set(key, { value });
    return value;
  }

  /** The cached value, without loading. */
  peek(key: string): V | undefined {
    return this.lru.get(key)?.value;
  }

  set(key: string, value: V): void {
    this.lru.set(key, { value });
  }

  delete(key: string): void {
    this.lru.delete(key);
    this.generation++;
  }

  /** The value, removed: handed out once. */
  take(key: string): V | undefined {
    const hit = this.lru.get(key);
    if (hit) this.lru.delete(key);
    return hit?.value;
  }

  /** The values held (to release what they hold, e.g. connection pools). */
  values(): IterableIterator<V> {
    return [...this.lru.values()].map((entry) => entry.value)[Symbol.iterator]();
  }

  /** Drops every entry. */
  clear(): void {
    this.lru.clear();
    this.generation++;
  }

  get size(): number {
    return this.lru.size;
  }
}

/** Every process cache, by spec; built once in the composition root (`AppDeps.caches`). */
export class Caches {
  private readonly bySpec = new Map<CacheSpec<unknown>, ReadThroughCache<unknown>>();

  of<V>(spec: CacheSpec<V>): ReadThroughCache<V> {
    let cache = this.bySpec.get(spec as CacheSpec<unknown>);
    if (!cache) {
      cache = new ReadThroughCache(spec as CacheSpec<unknown>);
      this.bySpec.set(spec as CacheSpec<unknown>, cache);
    }
    return cache as ReadThroughCache<V>;
  }

  /** Entries per cache name (diagnostics, metrics). */
  sizes(): Record<string, number> {
    return Object.fromEntries([...this.bySpec].map(([spec, cache]) => [spec.name, cache.size]));
  }
}
