import type { QueryConfig, QueryResultRow } from 'pg';
import {
  assertCounterItems,
  assertDocId,
  assertVersion,
  notFound,
  prepareInsert,
  prepareInsertMany,
  prepareReplaceMany,
  replaceArgs,
  toBody,
  toStored,
  updateWithRetry,
  versionConflict,
  type Body,
} from '../documents';
import {
  normalizeAggregate,
  normalizeFilter,
  normalizePaging,
  normalizeSort,
  type AggregatePath,
  type Paging,
} from '../filter';
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
  NewOutboxEvent,
  OutboxWrites,
  TextQuery,
} from '../port';
import { pageResult } from '../page-result';
import { assertTextFields, searchWords } from '../text';
import { orderSql, whereSql } from './filter';
import { mapDataError } from './errors';
import {
  ident,
  prepared,
  SqlParams,
  target,
  textVector,
  type FieldTypes,
  type Queryable,
  type StatementCounter,
} from './sql';

interface Row {
  id: string;
  version: number;
  doc: Body;
}

/** The outbox of the collection's schema, for writes that commit events with them (see OutboxWrites). */
export interface PgOutboxTarget {
  /** Schema-qualified, quoted `_outbox` table. */
  table: string;
  /** The schema's outbox notification channel. */
  channel: string;
}

/**
 * Outbox rows appended in the same statement as the write below, and only if it happened: one
 * INSERT of the events (in order; an id already there is kept) and the notification with
 * `origin`, as `system.enqueue` writes them.
 */
function outboxCte(outbox: PgOutboxTarget, written: string, p: SqlParams, events: readonly NewOutboxEvent[]): string {
  const rows = events.map((e) => ({
    id: e.id,
    subject: e.subject,
    payload: e.payload ?? null,
    headers: e.headers ?? {},
  }));
  return `ob AS (INSERT INTO ${outbox.table} (id, subject, payload, headers)
            SELECT e.v->>'id', e.v->>'subject', e.v->'payload', e.v->'headers'
            FROM jsonb_array_elements(${p.add(JSON.stringify(rows))}::jsonb) WITH ORDINALITY AS e(v, n)
            WHERE EXISTS (SELECT 1 FROM ${written}) ORDER BY e.n
            ON CONFLICT (id) DO NOTHING)`;
}

/**
 * The upsert of `addToCounters`, given the placeholders of its ids (text[]), documents (jsonb[])
 * and field name: the inserted document carries the deltas under `field`; on conflict they are
 * read back from EXCLUDED and each is added to the old value (numbers only), the other entries kept.
 */
export function addToCountersSql(table: string, ids: string, docs: string, field: string): string {
  return `INSERT INTO ${table} AS t (id, version, doc)
       SELECT v.id, 1, v.doc FROM unnest(${ids}::text[], ${docs}::jsonb[]) WITH ORDINALITY AS v(id, doc, n) ORDER BY v.n
       ON CONFLICT (id) DO UPDATE SET version = t.version + 1,
         doc = jsonb_set(t.doc, ARRAY[${field}::text],
           (CASE WHEN jsonb_typeof(t.doc -> ${field}::text) = 'object' THEN t.doc -> ${field}::text ELSE '{}'::jsonb END) ||
           coalesce((SELECT jsonb_object_agg(d.key, to_jsonb(d.value::numeric +
               CASE WHEN jsonb_typeof(t.doc -> ${field}::text -> d.key) = 'number' THEN (t.doc -> ${field}::text ->> d.key)::numeric ELSE 0 END))
             FROM jsonb_each_text(EXCLUDED.doc -> ${field}::text) AS d), '{}'::jsonb),
           true)`;
}

/** A statement and its bind values. */
export interface Statement {
  text: string;
  values: unknown[];
}

/**
 * The statements of `find` on `table`: the page, and the count of its matches (bounded by
 * `countUpTo`: a subquery stops at that many rows, so a large list is not counted to the end).
 * `types`: the collection's declared field types (CollectionSpec.fieldTypes).
 */
export function findStatements(
  table: string,
  filter: Filter,
  options: FindOptions,
  types: FieldTypes,
): { page: Statement; count: Statement; paging: Paging } {
  const conditions = normalizeFilter(filter);
  const sort = normalizeSort(options.sort);
  const paging = normalizePaging(options);
  const p = new SqlParams();
  const where = whereSql(conditions, p, types);
  const order = orderSql(sort, types);
  let text = `SELECT id, version, doc FROM ${table} ${where} ${order}`;
  if (paging.limit !== undefined) text += ` LIMIT ${paging.limit} OFFSET ${paging.offset}`;
  // The first matches in the page's order: the same count, read from the index the page walks
  // (from it alone when it holds every field the filter names) rather than from rows the planner
  // would rather scan, not knowing what testing their JSON costs.
  const count =
    paging.countUpTo === undefined
      ? `SELECT count(*) AS n FROM ${table} ${where}`
      : `SELECT count(*) AS n FROM (SELECT 1 FROM ${table} ${where} ${order} LIMIT ${paging.countUpTo}) AS m`;
  return { page: { text, values: p.values }, count: { text: count, values: p.values }, paging };
}

/** One collection = one table `(id text primary key, version int, doc jsonb)`. */
export class PgCollection<T extends StoredDoc> implements Collection<T>, OutboxWrites<T> {
  constructor(
    readonly name: string,
    /** Schema-qualified, quoted table name. */
    private readonly table: string,
    private readonly db: Queryable,
    /** Creates the table on first use when nobody called ensureCollection. */
    private readonly ensure: () => Promise<void>,
    /** The store's counter, for the rows written by `replace` (its UPDATE is inside a CTE). */
    private readonly counter: StatementCounter,
    /** The field types the collection declares (ensureCollection), read at each statement. */
    private readonly types: () => FieldTypes,
    /**
     * Runs statements in a transaction of their own, for a statement that sets planner options
     * locally; absent when the collection is used inside a caller's transaction.
     */
    private readonly isolated?: <R>(fn: (db: Queryable) => Promise<R>) => Promise<R>,
    /** Set outside transactions: writes that commit outbox events in their own statement. */
    private readonly outbox?: PgOutboxTarget,
  ) {}

  /** Writes that also append outbox events, atomically in one statement (outside transactions only). */
  get outboxWrites(): OutboxWrites<T> | undefined {
    return this.outbox ? this : undefined;
  }

  private target(): PgOutboxTarget {
    if (!this.outbox) throw new Error('outbox writes are for collections outside transactions');
    return this.outbox;
  }

  async insertWithEvents(
    doc: NewDoc<T> & { id: string },
    events: readonly NewOutboxEvent[],
    origin: string,
  ): Promise<T> {
    assertDocId(doc.id);
    const outbox = this.target();
    const body = toBody(doc);
    const p = new SqlParams();
    const values = `(${p.add(doc.id)}, 1, ${p.add(JSON.stringify(body))}::jsonb)`;
    await this.run(
      `WITH w AS (INSERT INTO ${this.table} (id, version, doc) VALUES ${values} RETURNING id),
       ${outboxCte(outbox, 'w', p, events)}
       SELECT pg_notify(${p.add(outbox.channel)}, ${p.add(origin)}) FROM w`,
      p.values,
    );
    // The statement's tag is SELECT: its writes are counted here.
    this.counter.rowsWritten += 1 + events.length;
    return toStored<T>(doc.id, 1, body);
  }

  async replaceWithEvents(
    id: string,
    expectedVersion: number,
    next: Omit<T, 'id' | 'version'>,
    events: readonly NewOutboxEvent[],
    origin: string,
  ): Promise<T> {
    assertVersion(expectedVersion);
    const outbox = this.target();
    const body = toBody(next);
    const p = new SqlParams();
    const idParam = p.add(id);
    const { rows } = await this.run<{ updated: number | null; current: number | null }>(
      `WITH w AS (UPDATE ${this.table} SET doc = ${p.add(JSON.stringify(body))}::jsonb, version = version + 1
                  WHERE id = ${idParam} AND version = ${p.add(expectedVersion)} RETURNING version),
       ${outboxCte(outbox, 'w', p, events)}
       SELECT (SELECT version FROM w) AS updated, (SELECT version FROM ${this.table} WHERE id = ${idParam}) AS current,
              (SELECT pg_notify(${p.add(outbox.channel)}, ${p.add(origin)}) FROM w) AS notified`,
      p.values,
    );
    const row = rows[0];
    if (row?.updated != null) {
      this.counter.rowsWritten += 1 + events.length;
      return toStored<T>(id, row.updated, body);
    }
    if (row?.current == null) throw notFound(this.name, id);
    throw versionConflict(this.name, id, expectedVersion, row.current);
  }

  async deleteWithEvents(id: string, events: readonly NewOutboxEvent[], origin: string): Promise<boolean> {
    const outbox = this.target();
    const p = new SqlParams();
    const { rows } = await this.run<{ n: string }>(
      `WITH w AS (DELETE FROM ${this.table} WHERE id = ${p.add(id)} RETURNING id),
       ${outboxCte(outbox, 'w', p, events)}
       SELECT (SELECT count(*) FROM w) AS n, (SELECT pg_notify(${p.add(outbox.channel)}, ${p.add(origin)}) FROM w) AS notified`,
      p.values,
    );
    const removed = Number(rows[0]?.n ?? 0) > 0;
    if (removed) this.counter.rowsWritten += 1 + events.length;
    return removed;
  }

  private async run<R extends QueryResultRow>(sql: string | QueryConfig, values?: unknown[]) {
    return this.guarded(() => (typeof sql === 'string' ? this.db.query<R>(sql, values) : this.db.query<R>(sql)));
  }

  private async guarded<R>(fn: () => Promise<R>): Promise<R> {
    try {
      await this.ensure();
      return await fn();
    } catch (err) {
      throw mapDataError(this.name, err);
    }
  }

  async insert(doc: NewDoc<T>): Promise<T> {
    const { id, body } = prepareInsert(doc);
    await this.run(
      prepared(`INSERT INTO ${this.table} (id, version, doc) VALUES ($1, 1, $2::jsonb)`, [id, JSON.stringify(body)]),
    );
    return toStored<T>(id, 1, body);
  }

  async insertMany(docs: NewDoc<T>[]): Promise<T[]> {
    if (docs.length === 0) return [];
    const prepared = prepareInsertMany(docs);
    const p = new SqlParams();
    const rows = prepared.map(({ id, body }) => `(${p.add(id)}, 1, ${p.add(JSON.stringify(body))}::jsonb)`);
    await this.run(`INSERT INTO ${this.table} (id, version, doc) VALUES ${rows.join(', ')}`, p.values);
    return prepared.map(({ id, body }) => toStored<T>(id, 1, body));
  }

  async get(id: string): Promise<T | null> {
    const { rows } = await this.run<Row>(prepared(`SELECT id, version, doc FROM ${this.table} WHERE id = $1`, [id]));
    const row = rows[0];
    return row ? toStored<T>(row.id, row.version, row.doc) : null;
  }

  async findOne(filter: Filter, options: Pick<FindOptions, 'sort'> = {}): Promise<T | null> {
    const page = await this.select(filter, { sort: options.sort, limit: 1 }, false);
    return page.items[0] ?? null;
  }

  find(filter: Filter, options: FindOptions & { total: true }): Promise<CountedPage<T>>;
  find(filter: Filter, options?: FindOptions): Promise<Page<T>>;
  find(filter: Filter, options: FindOptions = {}): Promise<Page<T>> {
    return this.select(filter, options, options.total === true);
  }

  private async select(filter: Filter, options: FindOptions, withTotal: boolean): Promise<Page<T>> {
    const { page, count, paging } = findStatements(this.table, filter, options, this.types());
    const { rows } = await this.run<Row>(page.text, page.values);
    const items = rows.map((row) => toStored<T>(row.id, row.version, row.doc));
    return pageResult(items, paging, withTotal, async () => {
      const counted = await this.run<{ n: string }>(count.text, count.values);
      return Number(counted.rows[0]?.n ?? 0);
    });
  }

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
    const p = new SqlParams();
    const where = whereSql(conditions, p, this.types());
    const vector = textVector(query.fields);
    // Words hold only letters and digits, so joining them with `|` cannot form other tsquery syntax.
    const tsquery = `to_tsquery('simple'::regconfig, ${p.add(words.join(' | '))})`;
    const match = `${where ? `${where} AND` : 'WHERE'} ${vector} @@ ${tsquery}`;
    let sql = `SELECT id, version, doc, count(*) OVER () AS total FROM ${this.table} ${match}
               ORDER BY ts_rank(${vector}, ${tsquery}) DESC, id COLLATE "C"`;
    if (paging.limit !== undefined) sql += ` LIMIT ${paging.limit} OFFSET ${paging.offset}`;
    const { rows } = await this.run<Row & { total: string }>(sql, p.values);
    const items = rows.map((row) => toStored<T>(row.id, row.version, row.doc));
    const total = rows[0] ? Number(rows[0].total) : paging.offset === 0 ? 0 : await this.countWhere(match, p.values);
    return { items, total, page: paging.page, limit: paging.limit ?? items.length };
  }

  async count(filter: Filter): Promise<number> {
    const p = new SqlParams();
    const where = whereSql(normalizeFilter(filter), p, this.types());
    return this.countWhere(where, p.values);
  }

  /**
   * One GROUP BY statement. With `unwind`, a lateral `jsonb_to_recordset` turns each element into
   * a row whose columns are the element fields named (parsed once per element, not once per
   * expression). Keys come back as jsonb (so numbers stay numbers), sums as numeric text.
   */
  async aggregate(filter: Filter, spec: AggregateSpec): Promise<AggregateRow[]> {
    const conditions = normalizeFilter(filter);
    const agg = normalizeAggregate(spec);
    const p = new SqlParams();
    const where = whereSql(conditions, p, this.types());
    const columns = [
      ...new Set([...agg.groupBy, ...agg.sum].filter((a) => a.element).map((a) => a.inner.split('.')[0] ?? a.inner)),
    ];
    const json = (a: AggregatePath): string => {
      if (a.element) {
        const [first = a.inner, ...rest] = a.inner.split('.');
        return rest.length ? `(u.${ident(first)} #> '{${rest.join(',')}}')` : `u.${ident(first)}`;
      }
      const t = target(a.path);
      return t.kind === 'doc' ? t.json : t.kind === 'id' ? 'to_jsonb(id)' : 'to_jsonb(version)';
    };
    const keys = agg.groupBy.map((a, i) => `NULLIF(${json(a)}, 'null'::jsonb) AS k${i}`);
    const sums = agg.sum.map(
      (a, i) =>
        `coalesce(sum(CASE WHEN jsonb_typeof(${json(a)}) = 'number' THEN (${json(a)})::numeric END), 0)::text AS s${i}`,
    );
    let from = this.table;
    if (agg.unwind !== undefined) {
      const array = json({ path: agg.unwind, element: false, inner: agg.unwind });
      // A row needs a column list; with no element field named, one placeholder column.
      const defs = (columns.length ? columns : ['_']).map((c) => `${ident(c)} jsonb`).join(', ');
      from = `${this.table} CROSS JOIN LATERAL jsonb_to_recordset(CASE WHEN jsonb_typeof(${array}) = 'array' THEN ${array} ELSE '[]'::jsonb END) AS u(${defs})`;
    }
    const group = agg.groupBy.length ? `GROUP BY ${agg.groupBy.map((_, i) => i + 1).join(', ')}` : '';
    const sql = `SELECT ${[...keys, ...sums, 'count(*) AS n'].join(', ')} FROM ${from} ${where} ${group}`;
    // NOTE: filters on JSON paths have no statistics, so the planner takes the input for a handful
    // of rows and sorts it for a GroupAggregate (spilling to disk on a large input). A grouped sum
    // over many rows wants hashing: sorting is switched off for this statement alone.
    const isolated = this.isolated;
    const { rows } = isolated
      ? await this.guarded(() =>
          isolated(async (db) => {
            await db.query('SET LOCAL enable_sort = off');
            return db.query<Record<string, unknown>>(sql, p.values);
          }),
        )
      : await this.run<Record<string, unknown>>(sql, p.values);
    return rows
      .filter((row) => agg.groupBy.length > 0 || Number(row.n) > 0)
      .map((row) => ({
        key: Object.fromEntries(agg.groupBy.map((a, i) => [a.path, (row[`k${i}`] ?? null) as Scalar])),
        sums: Object.fromEntries(agg.sum.map((a, i) => [a.path, Number(row[`s${i}`])])),
        count: Number(row.n),
      }));
  }

  private async countWhere(where: string, values: unknown[]): Promise<number> {
    const { rows } = await this.run<{ n: string }>(`SELECT count(*) AS n FROM ${this.table} ${where}`, values);
    return Number(rows[0]?.n ?? 0);
  }

  /**
   * One statement: the CTE updates when the version matches, and the outer SELECT reads the row
   * as it was before (a CTE's snapshot does not see its own update), so a miss tells not-found
   * from conflict without a second round trip.
   */
  async replace(...args: ReplaceArgs<T>): Promise<T> {
    const { id, expectedVersion, next } = replaceArgs(args);
    assertVersion(expectedVersion);
    const body = toBody(next);
    const { rows } = await this.run<{ updated: number | null; current: number | null }>(
      prepared(
        `WITH upd AS (UPDATE ${this.table} SET doc = $3::jsonb, version = version + 1
                      WHERE id = $1 AND version = $2 RETURNING version)
         SELECT (SELECT version FROM upd) AS updated, (SELECT version FROM ${this.table} WHERE id = $1) AS current`,
        [id, expectedVersion, JSON.stringify(body)],
      ),
    );
    const row = rows[0];
    if (row?.updated != null) {
      this.counter.rowsWritten += 1;
      return toStored<T>(id, row.updated, body);
    }
    if (row?.current == null) throw notFound(this.name, id);
    throw versionConflict(this.name, id, expectedVersion, row.current);
  }

  async addToCounters(
    field: string,
    items: ReadonlyArray<{ id: string; init: Omit<T, 'id' | 'version'>; deltas: Record<string, number> }>,
  ): Promise<void> {
    if (items.length === 0) return;
    assertCounterItems(field, items);
    await this.run(addToCountersSql(this.table, '$1', '$2', '$3'), [
      items.map((i) => i.id),
      items.map((i) => JSON.stringify(toBody({ ...i.init, [field]: i.deltas }))),
      field,
    ]);
  }

  async replaceMany(
    items: ReadonlyArray<{ id: string; expectedVersion: number; next: Omit<T, 'id' | 'version'> }>,
  ): Promise<T[]> {
    if (items.length === 0) return [];
    const writes = prepareReplaceMany(items);
    const { rows } = await this.run<{ id: string }>(
      `UPDATE ${this.table} AS t SET doc = v.doc, version = t.version + 1
       FROM unnest($1::text[], $2::int[], $3::jsonb[]) AS v(id, version, doc)
       WHERE t.id = v.id AND t.version = v.version RETURNING t.id`,
      [items.map((i) => i.id), items.map((i) => i.expectedVersion), writes.map((w) => JSON.stringify(w.body))],
    );
    if (rows.length !== items.length) {
      const done = new Set(rows.map((r) => r.id));
      const missed = items.find((i) => !done.has(i.id));
      if (!missed) throw new Error(`replaceMany ${this.name}: ${rows.length} of ${items.length} rows updated`);
      const current = await this.run<{ version: number }>(`SELECT version FROM ${this.table} WHERE id = $1`, [
        missed.id,
      ]);
      const version = current.rows[0]?.version;
      if (version === undefined) throw notFound(this.name, missed.id);
      throw versionConflict(this.name, missed.id, missed.expectedVersion, version);
    }
    return writes.map((i) => toStored<T>(i.id, i.expectedVersion + 1, i.body));
  }

  update(id: string, mutate: (current: T) => Omit<T, 'id' | 'version'> | null, retries?: number, held?: T): Promise<T> {
    return updateWithRetry(this, id, mutate, retries, held);
  }

  async delete(id: string): Promise<boolean> {
    const result = await this.run(prepared(`DELETE FROM ${this.table} WHERE id = $1`, [id]));
    return (result.rowCount ?? 0) > 0;
  }

  async deleteMany(filter: Filter): Promise<number> {
    const p = new SqlParams();
    const where = whereSql(normalizeFilter(filter), p, this.types());
    const result = await this.run(`DELETE FROM ${this.table} ${where}`, p.values);
    return result.rowCount ?? 0;
  }
}
