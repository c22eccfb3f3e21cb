import type { ClientSession, Collection as Native, Document } from 'mongodb';
import {
  assertCounterItems,
  assertVersion,
  duplicateKey,
  notFound,
  prepareInsert,
  prepareInsertMany,
  prepareReplaceMany,
  replaceArgs,
  toBody,
  toStored,
  updateWithRetry,
  versionConflict,
} from '../documents';
import { normalizeAggregate, normalizeFilter, normalizePaging, normalizeSort, totalFromPage } from '../filter';
import type {
  AggregateRow,
  AggregateSpec,
  Collection,
  CountedPage,
  Filter,
  FindOptions,
  NewDoc,
  Page,
  ReplaceArgs,
  Scalar,
  StoredDoc,
  TextQuery,
} from '../port';
import { pageResult } from '../page-result';
import { assertTextFields, searchWords } from '../text';
import { toMongoFilter, toMongoSort, type MongoDoc } from './filter';

export function isDuplicateKey(err: unknown): boolean {
  return typeof err === 'object' && err !== null && 'code' in err && err.code === 11000;
}

function fromMongo<T extends StoredDoc>(doc: MongoDoc): T {
  const { _id, version, ...body } = doc;
  return toStored<T>(_id, version, body);
}

/** Store collection over a native one; every call joins `session` when inside a transaction. */
export class MongoCollection<T extends StoredDoc> implements Collection<T> {
  constructor(
    readonly name: string,
    private readonly native: Native<MongoDoc>,
    private readonly session?: ClientSession,
  ) {}

  private async write<R>(op: () => Promise<R>): Promise<R> {
    try {
      return await op();
    } catch (err) {
      if (isDuplicateKey(err)) throw duplicateKey(this.name, err);
      throw err;
    }
  }

  async insert(doc: NewDoc<T>): Promise<T> {
    const { id, body } = prepareInsert(doc);
    await this.write(() => this.native.insertOne({ ...body, _id: id, version: 1 }, { session: this.session }));
    return toStored<T>(id, 1, body);
  }

  async insertMany(docs: NewDoc<T>[]): Promise<T[]> {
    if (docs.length === 0) return [];
    const prepared = prepareInsertMany(docs);
    await this.write(() =>
      this.native.insertMany(
        prepared.map((d) => ({ ...d.body, _id: d.id, version: 1 })),
        { session: this.session, ordered: true },
      ),
    );
    return prepared.map((d) => toStored<T>(d.id, 1, d.body));
  }

  async get(id: string): Promise<T | null> {
    const doc = await this.native.findOne({ _id: id }, { session: this.session });
    return doc ? fromMongo<T>(doc) : null;
  }

  async findOne(filter: Filter, options: Pick<FindOptions, 'sort'> = {}): Promise<T | null> {
    const query = toMongoFilter(normalizeFilter(filter));
    const sort = toMongoSort(normalizeSort(options.sort));
    const doc = await this.native.findOne(query, { sort, session: this.session });
    return doc ? fromMongo<T>(doc) : null;
  }

  find(filter: Filter, options: FindOptions & { total: true }): Promise<CountedPage<T>>;
  find(filter: Filter, options?: FindOptions): Promise<Page<T>>;
  async find(filter: Filter, options: FindOptions = {}): Promise<Page<T>> {
    const query = toMongoFilter(normalizeFilter(filter));
    const sort = toMongoSort(normalizeSort(options.sort));
    const paging = normalizePaging(options);
    let cursor = this.native.find(query, { sort, session: this.session });
    if (paging.limit !== undefined) cursor = cursor.skip(paging.offset).limit(paging.limit);
    const items = (await cursor.toArray()).map((doc) => fromMongo<T>(doc));
    const { countUpTo } = paging;
    // Sequential on purpose: a transaction's session must not run operations in parallel.
    return pageResult(items, paging, options.total === true, () =>
      this.native.countDocuments(query, {
        session: this.session,
        ...(countUpTo !== undefined ? { limit: countUpTo } : {}),
      }),
    );
  }

  /** `$text` over the collection's text index (its fields are the index's; `query.fields` only names them). */
  async search(
    filter: Filter,
    query: TextQuery,
    options: Pick<FindOptions, 'page' | 'limit'> = {},
  ): Promise<CountedPage<T>> {
    const conditions = normalizeFilter(filter);
    assertTextFields(query.fields);
    const paging = normalizePaging(options);
    const words = searchWords(query.text);
    if (words.length === 0) return { items: [], total: 0, page: paging.page, limit: paging.limit ?? 0 };
    // Words hold only letters and digits: no phrase (") or negation (-) syntax reaches $search.
    const mongoQuery = { ...toMongoFilter(conditions), $text: { $search: words.join(' ') } };
    let cursor = this.native.find(mongoQuery, {
      projection: { _searchScore: { $meta: 'textScore' } },
      sort: { _searchScore: { $meta: 'textScore' }, _id: 1 },
      session: this.session,
    });
    if (paging.limit !== undefined) cursor = cursor.skip(paging.offset).limit(paging.limit);
    const items = (await cursor.toArray()).map((doc) => {
      const { _searchScore: _score, ...rest } = doc as MongoDoc & { _searchScore?: number };
      void _score;
      return fromMongo<T>(rest as MongoDoc);
    });
    const total =
      (paging.limit === undefined
        ? items.length
        : totalFromPage({ offset: paging.offset, limit: paging.limit }, items.length)) ??
      (await this.native.countDocuments(mongoQuery, { session: this.session }));
    return { items, total, page: paging.page, limit: paging.limit ?? items.length };
  }

  count(filter: Filter): Promise<number> {
    return this.native.countDocuments(toMongoFilter(normalizeFilter(filter)), { session: this.session });
  }

  /** `$match`, `$unwind`, then one `$group` with positional key names (paths may hold dots). */
  async aggregate(filter: Filter, spec: AggregateSpec): Promise<AggregateRow[]> {
    const query = toMongoFilter(normalizeFilter(filter));
    const agg = normalizeAggregate(spec);
    const ref = (path: string) => `$${path === 'id' ? '_id' : path}`;
    const group: Record<string, unknown> = {
      _id: Object.fromEntries(agg.groupBy.map((a, i) => [`k${i}`, ref(a.path)])),
      n: { $sum: 1 },
    };
    agg.sum.forEach((a, i) => (group[`s${i}`] = { $sum: ref(a.path) }));
    // Like the PostgreSQL adapter, a field that is not an array contributes no rows.
    const unwind = agg.unwind ? [{ $match: { [agg.unwind]: { $type: 'array' } } }, { $unwind: ref(agg.unwind) }] : [];
    const pipeline = [{ $match: query }, ...unwind, { $group: group }];
    const rows = await this.native
      .aggregate<Record<string, unknown> & { _id: Record<string, unknown> }>(pipeline, { session: this.session })
      .toArray();
    return rows.map((row) => ({
      key: Object.fromEntries(agg.groupBy.map((a, i) => [a.path, (row._id[`k${i}`] ?? null) as Scalar])),
      sums: Object.fromEntries(agg.sum.map((a, i) => [a.path, Number(row[`s${i}`] ?? 0)])),
      count: Number(row.n),
    }));
  }

  async replace(...args: ReplaceArgs<T>): Promise<T> {
    const { id, expectedVersion, next } = replaceArgs(args);
    assertVersion(expectedVersion);
    const body = toBody(next);
    const version = expectedVersion + 1;
    const result = await this.write(() =>
      this.native.replaceOne({ _id: id, version: expectedVersion }, { ...body, version }, { session: this.session }),
    );
    if (result.matchedCount === 1) return toStored<T>(id, version, body);
    const current = await this.native.findOne({ _id: id }, { projection: { version: 1 }, session: this.session });
    if (!current) throw notFound(this.name, id);
    throw versionConflict(this.name, id, expectedVersion, current.version);
  }

  async addToCounters(
    field: string,
    items: ReadonlyArray<{ id: string; init: Omit<T, 'id' | 'version'>; deltas: Record<string, number> }>,
  ): Promise<void> {
    if (items.length === 0) return;
    assertCounterItems(field, items);
    // Update pipelines (typed, and free to name any counter key through $getField): fields of
    // `init` fill in only when missing, each counter adds its delta to the value there (else 0).
    const current: Document = { $ifNull: [`$${field}`, {}] };
    const pipeline = (init: Omit<T, 'id' | 'version'>, deltas: Record<string, number>): Document[] => {
      const { [field]: _ignored, ...seed } = toBody(init);
      const added: Document = {};
      for (const [k, v] of Object.entries(deltas)) {
        const old: Document = { $getField: { field: { $literal: k }, input: current } };
        added[k] = { $add: [{ $cond: [{ $isNumber: old }, old, 0] }, v] };
      }
      const set: Document = {
        version: { $add: [{ $ifNull: ['$version', 0] }, 1] },
        [field]: { $mergeObjects: [current, added] },
      };
      for (const [k, v] of Object.entries(seed)) set[k] = { $ifNull: [`$${k}`, { $literal: v }] };
      return [{ $set: set }];
    };
    await this.write(() =>
      this.native.bulkWrite(
        items.map((i) => ({ updateOne: { filter: { _id: i.id }, update: pipeline(i.init, i.deltas), upsert: true } })),
        { ordered: true, session: this.session },
      ),
    );
  }

  async replaceMany(
    items: ReadonlyArray<{ id: string; expectedVersion: number; next: Omit<T, 'id' | 'version'> }>,
  ): Promise<T[]> {
    if (items.length === 0) return [];
    const writes = prepareReplaceMany(items);
    const result = await this.write(() =>
      this.native.bulkWrite(
        writes.map((i) => ({
          replaceOne: {
            filter: { _id: i.id, version: i.expectedVersion },
            replacement: { ...i.body, version: i.expectedVersion + 1 },
          },
        })),
        { ordered: true, session: this.session },
      ),
    );
    if (result.matchedCount !== items.length) {
      for (const i of items) {
        const current = await this.native.findOne({ _id: i.id }, { projection: { version: 1 }, session: this.session });
        if (!current) throw notFound(this.name, i.id);
        if (current.version !== i.expectedVersion + 1)
          throw versionConflict(this.name, i.id, i.expectedVersion, current.version);
      }
    }
    return writes.map((i) => toStored<T>(i.id, i.expectedVersion + 1, i.body));
  }

  update(id: string, mutate: (current: T) => Omit<T, 'id' | 'version'> | null, retries?: number, held?: T): Promise<T> {
    return updateWithRetry(this, id, mutate, retries, held);
  }

  async delete(id: string): Promise<boolean> {
    const result = await this.native.deleteOne({ _id: id }, { session: this.session });
    return result.deletedCount === 1;
  }

  async deleteMany(filter: Filter): Promise<number> {
    const result = await this.native.deleteMany(toMongoFilter(normalizeFilter(filter)), { session: this.session });
    return result.deletedCount;
  }
}
