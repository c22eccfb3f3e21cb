import { createHash } from 'node:crypto';
import { ValidationError } from '@paymesh/core';
import { assertDocId } from '../documents';
import type { IndexSpec, OutboxEvent, TextIndexSpec } from '../port';
import { blobsDdl } from './blobs';
import { normalizeFilter } from '../filter';
import { whereSql } from './filter';
import {
  ident,
  indexExpression,
  SqlParams,
  prepared,
  target,
  textVector,
  typedDirection,
  typedExpression,
  type FieldTypes,
  type Queryable,
} from './sql';

/** DDL for the store's own tables in a service schema. */
export function systemDdl(schema: string): string[] {
  const s = ident(schema);
  return [
    `CREATE SCHEMA IF NOT EXISTS ${s}`,
    `CREATE TABLE IF NOT EXISTS ${s}."_outbox" (
       seq bigserial PRIMARY KEY,
       id text NOT NULL UNIQUE,
       subject text NOT NULL,
       payload jsonb NOT NULL,
       headers jsonb NOT NULL DEFAULT '{}'::jsonb,
       created_at timestamptz NOT NULL DEFAULT now(),
       published_at timestamptz
     )`,
    `CREATE INDEX IF NOT EXISTS "_outbox_pending" ON ${s}."_outbox" (seq) WHERE published_at IS NULL`,
    `CREATE TABLE IF NOT EXISTS ${s}."_sequences" (key text PRIMARY KEY, value bigint NOT NULL)`,
    blobsDdl(schema),
    // Raised by a batched transaction's statement when a compare-and-set in it missed (see batch-tx.ts).
    `CREATE OR REPLACE FUNCTION ${s}.${ident(CAS_FAILED_FN)}(tbl text, doc_id text, expected integer, actual integer)
       RETURNS integer LANGUAGE plpgsql AS $$
     BEGIN
       RAISE EXCEPTION 'compare-and-set of % % missed', tbl, doc_id USING ERRCODE = '${CAS_FAILED_CODE}',
         DETAIL = json_build_object('table', tbl, 'id', doc_id, 'expected', expected, 'actual', actual)::text;
     END $$`,
  ];
}

/** The schema's function that fails a batched statement whose compare-and-set missed. */
export const CAS_FAILED_FN = '_cas_failed';
export const casFailedFn = (schema: string): string => `${ident(schema)}.${ident(CAS_FAILED_FN)}`;
/** Its SQLSTATE (class PM: ours), with the table, id and versions as JSON in the error's detail. */
export const CAS_FAILED_CODE = 'PM409';

export function tableDdl(schema: string, table: string): string {
  return `CREATE TABLE IF NOT EXISTS ${ident(schema)}.${ident(table)} (
    id text PRIMARY KEY, version integer NOT NULL, doc jsonb NOT NULL)`;
}

/** PostgreSQL index names are per schema and at most 63 bytes; long ones get a hash suffix. */
export function pgIndexName(table: string, index: string): string {
  const name = `${table}__${index}`;
  if (name.length <= 63) return name;
  const hash = createHash('sha256').update(name).digest('hex').slice(0, 12);
  return `${name.slice(0, 50)}_${hash}`;
}

/**
 * One column of a b-tree index: the field's expression (its declared type's, `types`) in its
 * direction; a declared field's column orders nulls as its sorts do (first ascending), so a sort
 * on it can walk the index either way.
 */
function indexColumn(field: string, descending: boolean, types: FieldTypes): string {
  const column = `(${indexExpression(field, types)})`;
  if (typedExpression(field, types) !== undefined) return `${column} ${typedDirection(descending ? -1 : 1)}`;
  return descending ? `${column} DESC` : column;
}

export function indexDdl(schema: string, table: string, spec: IndexSpec, types: FieldTypes = {}): string {
  if (spec.array) {
    // The expression `$has` filters test with `@>` (jsonb_path_ops serves containment only).
    const [field] = spec.fields;
    if (field === undefined) throw new Error(`index ${spec.name}: no field`);
    const t = target(field);
    if (t.kind !== 'doc') throw new Error(`index ${spec.name}: an array index needs a document field`);
    return `CREATE INDEX IF NOT EXISTS ${ident(pgIndexName(table, spec.name))} ON ${ident(schema)}.${ident(table)} USING gin (${t.json} jsonb_path_ops)`;
  }
  const descending = new Set(spec.descending ?? []);
  const columns = spec.fields.map((f) => indexColumn(f, descending.has(f), types)).join(', ');
  const unique = spec.unique ? 'UNIQUE ' : '';
  const name = ident(pgIndexName(table, spec.name));
  // The predicate is the very SQL a filter with the same conditions gets, so the planner sees it implied.
  const where = spec.where ? ` ${whereSql(normalizeFilter(spec.where), new SqlParams(), types)}` : '';
  return `CREATE ${unique}INDEX IF NOT EXISTS ${name} ON ${ident(schema)}.${ident(table)} (${columns})${where}`;
}

export function dropIndexDdl(schema: string, table: string, index: string): string {
  return `DROP INDEX IF EXISTS ${ident(schema)}.${ident(pgIndexName(table, index))}`;
}

export function textIndexDdl(schema: string, table: string, spec: TextIndexSpec): string {
  const name = ident(pgIndexName(table, spec.name));
  return `CREATE INDEX IF NOT EXISTS ${name} ON ${ident(schema)}.${ident(table)} USING gin (${textVector(spec.fields)})`;
}

/**
 * The LISTEN/NOTIFY channel of a schema's outbox. Channel names are identifiers of at most 63
 * bytes; long schema names get a hash instead.
 */
export function outboxChannel(schema: string): string {
  const name = `${schema}__outbox`;
  return name.length <= 63 ? name : `outbox_${createHash('sha256').update(schema).digest('hex').slice(0, 40)}`;
}

/** The LISTEN/NOTIFY channel on which writes to a schema's cached collections are announced. */
export function changeChannel(schema: string): string {
  const name = `${schema}__changes`;
  return name.length <= 63 ? name : `changes_${createHash('sha256').update(schema).digest('hex').slice(0, 40)}`;
}

/** Name of the row trigger that announces writes to a cached collection. */
export const CHANGE_TRIGGER = 'paymesh_announce_change';

/**
 * The row trigger of a cached collection: every insert, update and delete notifies the schema's
 * change channel with `<table> <id> <origin>` (delivered when the writing transaction commits);
 * `origin` is the writing process's `paymesh.origin` setting, empty for other writers.
 */
export function changeTriggerDdl(schema: string, table: string): string[] {
  const fn = `${ident(schema)}.${ident('_announce_change')}`;
  return [
    `CREATE OR REPLACE FUNCTION ${fn}() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    PERFORM pg_notify(TG_ARGV[0], TG_TABLE_NAME || ' ' || OLD.id || ' ' || coalesce(current_setting('paymesh.origin', true), ''));
  ELSE
    PERFORM pg_notify(TG_ARGV[0], TG_TABLE_NAME || ' ' || NEW.id || ' ' || coalesce(current_setting('paymesh.origin', true), ''));
  END IF;
  RETURN NULL;
END $$`,
    `CREATE OR REPLACE TRIGGER ${ident(CHANGE_TRIGGER)} AFTER INSERT OR UPDATE OR DELETE ON ${ident(schema)}.${ident(table)}
      FOR EACH ROW EXECUTE FUNCTION ${fn}('${changeChannel(schema).replace(/'/g, "''")}')`,
  ];
}

/**
 * Writes the events in one statement, in order (their `seq` follows the array), and notifies the
 * outbox channel with `origin` in the same statement: PostgreSQL delivers the notification only
 * when the transaction commits, and folds identical ones of a transaction into one.
 */
export async function enqueue(
  db: Queryable,
  schema: string,
  events: Omit<OutboxEvent, 'createdAt'>[],
  origin = '',
): Promise<void> {
  if (events.length === 0) return;
  // Only called inside PostgresStore.transaction, which maps data errors (NUL in a payload: 400).
  await db.query(
    prepared(`WITH ins AS (${outboxInsertSql(schema, '$1')}) SELECT pg_notify($2, $3)`, [
      outboxRowsJson(events),
      outboxChannel(schema),
      origin,
    ]),
  );
}

/** The events as the JSON array {@link outboxInsertSql} takes; throws on an empty id or subject. */
export function outboxRowsJson(events: Omit<OutboxEvent, 'createdAt'>[]): string {
  return JSON.stringify(
    events.map((event) => {
      assertDocId(event.id);
      if (typeof event.subject !== 'string' || event.subject.length === 0) {
        throw new ValidationError('event subject must be a non-empty string', { field: 'subject' });
      }
      return { id: event.id, subject: event.subject, payload: event.payload ?? null, headers: event.headers ?? {} };
    }),
  );
}

/** Inserts the events of the JSON array at placeholder `rows`, in order (an id already there is kept). */
export function outboxInsertSql(schema: string, rows: string): string {
  return `INSERT INTO ${ident(schema)}."_outbox" (id, subject, payload, headers)
         SELECT e.v->>'id', e.v->>'subject', e.v->'payload', e.v->'headers'
         FROM jsonb_array_elements(${rows}::jsonb) WITH ORDINALITY AS e(v, n) ORDER BY e.n
         ON CONFLICT (id) DO NOTHING`;
}

interface OutboxRow {
  id: string;
  subject: string;
  payload: unknown;
  headers: Record<string, string>;
  created_at: Date;
}

/**
 * The oldest unpublished events; `marks` (events published and not yet marked) are marked in the
 * same statement and left out (its snapshot is from before the mark).
 */
export async function pending(
  db: Queryable,
  schema: string,
  limit: number,
  marks: string[] = [],
): Promise<OutboxEvent[]> {
  if (!Number.isSafeInteger(limit) || limit < 1) throw new ValidationError('limit must be an integer >= 1');
  const select = `SELECT id, subject, payload, headers, created_at FROM ${ident(schema)}."_outbox"
       WHERE published_at IS NULL`;
  const { rows } = await db.query<OutboxRow>(
    marks.length === 0
      ? prepared(`${select} ORDER BY seq LIMIT $1`, [limit])
      : prepared(
          `WITH m AS (${markSql(schema, '$2')}) ${select} AND NOT (id = ANY($2::text[])) ORDER BY seq LIMIT $1`,
          [limit, marks],
        ),
  );
  return rows.map((r) => ({
    id: r.id,
    subject: r.subject,
    payload: r.payload,
    headers: r.headers,
    createdAt: r.created_at.toISOString(),
  }));
}

export async function markPublished(db: Queryable, schema: string, ids: string[]): Promise<void> {
  if (ids.length === 0) return;
  await db.query(prepared(markSql(schema, '$1'), [ids]));
}

/** Marks the events whose ids are the text[] at placeholder `ids` as published. */
export function markSql(schema: string, ids: string): string {
  return `UPDATE ${ident(schema)}."_outbox" SET published_at = now() WHERE id = ANY(${ids}::text[]) AND published_at IS NULL`;
}

/** Row-locked upsert: concurrent callers serialize on the key, and a rollback returns the number. */
export async function nextSequence(db: Queryable, schema: string, key: string, startAt = 1): Promise<number> {
  if (typeof key !== 'string' || key.length === 0) throw new ValidationError('sequence key must be a non-empty string');
  if (!Number.isSafeInteger(startAt)) throw new ValidationError('startAt must be an integer');
  const { rows } = await db.query<{ value: string }>(prepared(nextSequenceSql(schema, '$1', '$2'), [key, startAt]));
  return Number(rows[0]?.value);
}

/** The counter's row-locked upsert, returning `value`; `key` and `startAt` are placeholders. */
export function nextSequenceSql(schema: string, key: string, startAt: string): string {
  return `INSERT INTO ${ident(schema)}."_sequences" AS s (key, value) VALUES (${key}, ${startAt})
       ON CONFLICT (key) DO UPDATE SET value = s.value + 1 RETURNING value`;
}
