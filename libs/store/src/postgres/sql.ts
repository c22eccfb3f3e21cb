import { createHash } from 'node:crypto';
import type { QueryConfig, QueryResult, QueryResultRow } from 'pg';
import type { FieldType } from '../port';

/** What the collection code needs from a pg `Pool` or a checked-out `PoolClient`. */
export interface Queryable {
  query<R extends QueryResultRow = QueryResultRow>(text: string, values?: unknown[]): Promise<QueryResult<R>>;
  query<R extends QueryResultRow = QueryResultRow>(config: QueryConfig): Promise<QueryResult<R>>;
}

/** Statements sent and rows written by one store, for benchmarks and the cost budget. */
export class StatementCounter {
  statements = 0;
  rowsWritten = 0;
  /** Statements by {@link statementLabel}, for the cost budget's breakdown. */
  readonly byStatement: Record<string, number> = {};

  count(text: string): void {
    this.statements += 1;
    const label = statementLabel(text);
    this.byStatement[label] = (this.byStatement[label] ?? 0) + 1;
  }
}

const labels = new Map<string, string>();

/**
 * A short name of a statement's shape: its first keyword and the tables it names, without the
 * schema (`SELECT sessions`, `WITH transactions`, `INSERT _outbox`, `BEGIN`). Bind values never
 * appear in it; the label of each text is computed once.
 */
export function statementLabel(text: string): string {
  let label = labels.get(text);
  if (label === undefined) {
    const verb = /^\s*([A-Za-z]+)/.exec(text)?.[1]?.toUpperCase() ?? '?';
    const tables = [...new Set([...text.matchAll(/"[^"]+"\."([^"]+)"/g)].flatMap((m) => (m[1] ? [m[1]] : [])))];
    label = tables.length ? `${verb} ${tables.join(',')}` : verb;
    if (labels.size < 10_000) labels.set(text, label);
  }
  return label;
}

/** Command tags whose row count is the number of rows the statement wrote. */
const WRITE_COMMANDS = new Set(['INSERT', 'UPDATE', 'DELETE', 'MERGE']);

/**
 * Wraps a pool or client so every statement sent through it is counted, and the rows written by
 * INSERT, UPDATE and DELETE statements with it. NOTE: a statement that writes inside a CTE has the
 * command tag of its outer SELECT; its caller adds the rows it wrote to the counter itself.
 */
export function counted(db: Queryable, counter: StatementCounter): Queryable {
  return {
    async query(textOrConfig: string | QueryConfig, values?: unknown[]) {
      counter.count(typeof textOrConfig === 'string' ? textOrConfig : textOrConfig.text);
      const result =
        typeof textOrConfig === 'string' ? await db.query(textOrConfig, values) : await db.query(textOrConfig);
      if (WRITE_COMMANDS.has(result.command)) counter.rowsWritten += result.rowCount ?? 0;
      return result;
    },
  } as Queryable;
}

/** Collects bind values and hands out their `$n` placeholders. */
export class SqlParams {
  readonly values: unknown[] = [];

  add(value: unknown): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }
}

/** Identifiers reaching here are validated (paths.ts), so quoting is only for case and keywords. */
export function ident(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/** The columns a document lives in; `id` and `version` are real columns, the rest is `doc`. */
export type Target =
  | { kind: 'id' }
  | { kind: 'version' }
  | {
      kind: 'doc';
      /** jsonb value at the path (SQL NULL when missing). */
      json: string;
      /** Text value at the path (SQL NULL when missing or JSON null). */
      text: string;
    };

/**
 * Field paths are inlined as literals rather than bound: the planner matches expression indexes
 * such as `(doc #>> '{email}')` only against the same constant expression. Paths are validated
 * to `[A-Za-z0-9_.]`, so the literal cannot break out.
 */
export function target(path: string): Target {
  if (path === 'id') return { kind: 'id' };
  if (path === 'version') return { kind: 'version' };
  const literal = `'{${path.split('.').join(',')}}'`;
  return { kind: 'doc', json: `(doc #> ${literal})`, text: `(doc #>> ${literal})` };
}

/** The field types a collection declares (CollectionSpec.fieldTypes); none: `{}`. */
export type FieldTypes = Readonly<Record<string, FieldType>>;

/** The declared type of a document field, if any. */
export function typeOf(types: FieldTypes, path: string): FieldType | undefined {
  return Object.hasOwn(types, path) ? types[path] : undefined;
}

/**
 * The expression a declared field is filtered, sorted and indexed by: a string's text compared
 * bytewise, a number's jsonb value (jsonb numbers compare numerically). Undefined when the field
 * is not declared.
 */
export function typedExpression(path: string, types: FieldTypes): string | undefined {
  const type = typeOf(types, path);
  const t = target(path);
  if (type === undefined || t.kind !== 'doc') return undefined;
  return type === 'string' ? `${t.text} COLLATE "C"` : t.json;
}

/** Direction of a declared field's sort key or index column: missing and null first ascending, as MongoDB orders them. */
export const typedDirection = (dir: 1 | -1): string => (dir === 1 ? 'ASC NULLS FIRST' : 'DESC NULLS LAST');

/** Expression indexed for a field in `ensureCollection`; equality filters on strings use it too. */
export function indexExpression(path: string, types: FieldTypes = {}): string {
  const typed = typedExpression(path, types);
  if (typed !== undefined) return typed;
  const t = target(path);
  // Filters and sorts compare ids bytewise (COLLATE "C"); an index on `id` must too to serve them.
  if (t.kind === 'id') return 'id COLLATE "C"';
  return t.kind === 'doc' ? t.text : t.kind;
}

const statementNames = new Map<string, string>();

/**
 * A named (server-side prepared) query for a fixed statement shape: pg parses and plans it once
 * per connection and afterwards only binds values. The name is a hash of the text, so one name
 * never stands for two different statements on a connection.
 */
export function prepared(text: string, values: unknown[]): QueryConfig {
  let name = statementNames.get(text);
  if (name === undefined) {
    name = `pm_${createHash('sha1').update(text).digest('hex').slice(0, 20)}`;
    statementNames.set(text, name);
  }
  return { name, text, values };
}

/**
 * The tsvector a text index covers: the fields' text joined, lower-cased, cut into words of
 * letters and digits, in the `simple` configuration (no stemming, no stop words). The same
 * constant expression is indexed and searched, so the planner uses the GIN index.
 */
export function textVector(fields: string[]): string {
  const joined = fields.map((f) => `coalesce(doc #>> '{${f.split('.').join(',')}}', '')`).join(` || ' ' || `);
  return `to_tsvector('simple'::regconfig, regexp_replace(lower(${joined}), '[^[:alnum:]]+', ' ', 'g'))`;
}
