// An in-memory StorageService for the Credo peer (bench/peer/credo/agent.ts), so that Credo 0.6 runs without
// Askar's native binary. Like a database it keeps records serialised (JSON text, parsed into a new instance
// on every read, so callers never share objects) and answers Credo's tag queries — equality on scalar
// tags, "contains every value" on array tags, $and / $or / $not — from an index of tag values rather
// than by scanning every record of a type.
import {
  type AgentContext,
  type BaseRecord,
  type BaseRecordConstructor,
  JsonTransformer,
  type Query,
  type QueryOptions,
  RecordDuplicateError,
  RecordNotFoundError,
  type StorageService,
} from "@credo-ts/core";

type TagValue = string | boolean | number | string[] | null | undefined;
type Tags = Record<string, TagValue>;
type AnyRecord = BaseRecord<any, any, any>;

interface Stored {
  json: string;
  tags: Tags;
}

/** One record type in one agent context: records by id, and record ids by tag value. */
class Table {
  readonly rows = new Map<string, Stored>();
  private readonly index = new Map<string, Set<string>>();

  put(id: string, stored: Stored) {
    const previous = this.rows.get(id);
    if (previous) this.unindex(id, previous.tags);
    this.rows.set(id, stored);
    for (const key of indexKeys(stored.tags)) {
      const ids = this.index.get(key);
      if (ids) ids.add(id);
      else this.index.set(key, new Set([id]));
    }
  }

  remove(id: string): boolean {
    const previous = this.rows.get(id);
    if (!previous) return false;
    this.unindex(id, previous.tags);
    this.rows.delete(id);
    return true;
  }

  /** Ids that may match (a superset, checked with `matches` afterwards), or null when only a scan can say. */
  candidates(query: Query<AnyRecord>): Set<string> | null {
    let best: Set<string> | null = null;
    const consider = (ids: Set<string> | null) => {
      if (ids && (!best || ids.size < best.size)) best = ids;
    };
    for (const [name, value] of Object.entries(query as Record<string, unknown>)) {
      if (name === "$and") for (const sub of value as Query<AnyRecord>[]) consider(this.candidates(sub));
      else if (name === "$or" || name === "$not" || value === undefined || value === null) continue;
      else if (Array.isArray(value))
        for (const item of value) consider(this.index.get(arrayKey(name, item)) ?? new Set());
      else consider(this.index.get(scalarKey(name, value)) ?? new Set());
    }
    return best;
  }

  private unindex(id: string, tags: Tags) {
    for (const key of indexKeys(tags)) {
      const ids = this.index.get(key);
      ids?.delete(id);
      if (ids?.size === 0) this.index.delete(key);
    }
  }
}

const scalarKey = (name: string, value: unknown) => `${name}=${JSON.stringify(value)}`;
const arrayKey = (name: string, value: unknown) => `${name}[]=${JSON.stringify(value)}`;

function indexKeys(tags: Tags): string[] {
  const keys: string[] = [];
  for (const [name, value] of Object.entries(tags)) {
    if (value === undefined || value === null) continue;
    if (Array.isArray(value)) for (const item of value) keys.push(arrayKey(name, item));
    else keys.push(scalarKey(name, value));
  }
  return keys;
}

/** Whether a record's tags satisfy a query: every condition of the object holds. */
export function matches(tags: Tags, query: Query<AnyRecord>): boolean {
  for (const [name, value] of Object.entries(query as Record<string, unknown>)) {
    if (name === "$and") {
      if (!(value as Query<AnyRecord>[]).every((sub) => matches(tags, sub))) return false;
    } else if (name === "$or") {
      if (!(value as Query<AnyRecord>[]).some((sub) => matches(tags, sub))) return false;
    } else if (name === "$not") {
      if (matches(tags, value as Query<AnyRecord>)) return false;
    } else if (value === undefined) {
    } else if (value === null) {
      if (tags[name] !== undefined && tags[name] !== null) return false;
    } else if (Array.isArray(value)) {
      const held = tags[name];
      if (!Array.isArray(held) || !value.every((item) => held.includes(item))) return false;
    } else if (tags[name] !== value) return false;
  }
  return true;
}

export class InMemoryStorageService<T extends AnyRecord = AnyRecord> implements StorageService<T> {
  readonly supportsCursorPagination = false;
  private readonly contexts = new Map<string, Map<string, Table>>();

  private table(agentContext: AgentContext, type: string): Table {
    let tables = this.contexts.get(agentContext.contextCorrelationId);
    if (!tables) {
      tables = new Map();
      this.contexts.set(agentContext.contextCorrelationId, tables);
    }
    let table = tables.get(type);
    if (!table) {
      table = new Table();
      tables.set(type, table);
    }
    return table;
  }

  private static serialise(record: AnyRecord): Stored {
    return { json: JsonTransformer.serialize(record), tags: structuredClone(record.getTags()) as Tags };
  }

  private static instance<R extends AnyRecord>(recordClass: BaseRecordConstructor<R>, stored: Stored): R {
    const record = JsonTransformer.deserialize(stored.json, recordClass);
    record.replaceTags(structuredClone(stored.tags) as never);
    return record;
  }

  async save(agentContext: AgentContext, record: T): Promise<void> {
    const table = this.table(agentContext, record.type);
    if (table.rows.has(record.id))
      throw new RecordDuplicateError(`record with id ${record.id} already exists`, {
        recordType: record.type,
      });
    record.updatedAt = new Date();
    table.put(record.id, InMemoryStorageService.serialise(record));
  }

  async update(agentContext: AgentContext, record: T): Promise<void> {
    const table = this.table(agentContext, record.type);
    if (!table.rows.has(record.id))
      throw new RecordNotFoundError(`record with id ${record.id} not found`, { recordType: record.type });
    record.updatedAt = new Date();
    table.put(record.id, InMemoryStorageService.serialise(record));
  }

  async delete(agentContext: AgentContext, record: T): Promise<void> {
    if (!this.table(agentContext, record.type).remove(record.id))
      throw new RecordNotFoundError(`record with id ${record.id} not found`, { recordType: record.type });
  }

  async deleteById(agentContext: AgentContext, recordClass: BaseRecordConstructor<T>, id: string) {
    if (!this.table(agentContext, recordClass.type).remove(id))
      throw new RecordNotFoundError(`record with id ${id} not found`, { recordType: recordClass.type });
  }

  async getById(agentContext: AgentContext, recordClass: BaseRecordConstructor<T>, id: string): Promise<T> {
    const stored = this.table(agentContext, recordClass.type).rows.get(id);
    if (!stored)
      throw new RecordNotFoundError(`record with id ${id} not found`, { recordType: recordClass.type });
    return InMemoryStorageService.instance(recordClass, stored);
  }

  async getAll(agentContext: AgentContext, recordClass: BaseRecordConstructor<T>): Promise<T[]> {
    return [...this.table(agentContext, recordClass.type).rows.values()].map((s) =>
      InMemoryStorageService.instance(recordClass, s),
    );
  }

  async findByQuery(
    agentContext: AgentContext,
    recordClass: BaseRecordConstructor<T>,
    query: Query<T>,
    queryOptions?: QueryOptions,
  ): Promise<T[]> {
    if (queryOptions?.cursor) throw new Error("cursor pagination is not supported by this storage");
    const table = this.table(agentContext, recordClass.type);
    const candidates = table.candidates(query as Query<AnyRecord>);
    const ids = candidates ? [...candidates] : [...table.rows.keys()];
    const offset = queryOptions?.offset ?? 0;
    const limit = queryOptions?.limit ?? Number.POSITIVE_INFINITY;
    const found: T[] = [];
    let skipped = 0;
    for (const id of ids) {
      if (found.length >= limit) break;
      const stored = table.rows.get(id)!;
      if (!matches(stored.tags, query as Query<AnyRecord>)) continue;
      if (skipped++ < offset) continue;
      found.push(InMemoryStorageService.instance(recordClass, stored));
    }
    return found;
  }
}
