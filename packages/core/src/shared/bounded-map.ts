/**
 * A Map that drops its oldest entry when a new key would exceed `maxEntries`, for the rows a process
 * remembers between a wallet's requests (offers, redeemed transactions, verification sessions).
 */
export class BoundedMap<K, V> extends Map<K, V> {
  constructor(private readonly maxEntries: number) {
    super();
  }

  override set(key: K, value: V): this {
    if (!this.has(key) && this.size >= this.maxEntries) this.delete(this.keys().next().value as K);
    return super.set(key, value);
  }

  /** The value, removed: handed out once. */
  take(key: K): V | undefined {
    const value = this.get(key);
    this.delete(key);
    return value;
  }
}
