import { isDomainError } from '@paymesh/core';
import type { DataRowError } from '@paymesh/contracts';
import type { ZodTypeAny, output } from 'zod';
import { rowInputOf, type ColumnSpec, type CsvRow } from '../../domain/data-io';
import type { DataIoDeps } from '../data-io-port';
import type { OrgKey } from '../deps';

// What every entity importer of `importData` (../data-import.ts) is made of.

/** A record a group of rows describes, checked and ready to write. */
export interface Prepared<T> {
  /** First row of the record: with the file digest, its idempotency key. */
  row: number;
  input: T;
}

export interface Checked<T> {
  prepared: Prepared<T>[];
  errors: DataRowError[];
}

/** How one entity type checks and writes a batch of rows. */
export interface Importer<T> {
  check(deps: DataIoDeps, key: OrgKey, rows: CsvRow[]): Promise<Checked<T>>;
  /** Writes what is not written yet; answers [created, already imported]. */
  write(deps: DataIoDeps, key: OrgKey, ctx: WriteContext, records: Prepared<T>[]): Promise<[number, number]>;
}

export interface WriteContext {
  digest: string;
  actor: string;
  /** Tax rates already there (code|validFrom), read once per import. */
  taxRates?: Set<string>;
}

export const importKeyOf = (digest: string, row: number) => `${digest}:${row}`;

/** A DomainError from a row's domain checks as a row error; anything else is not the row's fault. */
export function rowErrorOf(err: unknown, row: number): DataRowError {
  if (isDomainError(err) && (err.kind === 'validation' || err.kind === 'not_found' || err.kind === 'unprocessable')) {
    const field = err.field ?? null;
    const message = field && err.message.startsWith(`${field}: `) ? err.message.slice(field.length + 2) : err.message;
    return { row, field, error: message };
  }
  throw err;
}

/**
 * The `check` of an entity whose every row is one record: the row read into its create body (cell
 * and schema errors are the row's), then `prepare`'s domain checks (a DomainError is the row's).
 */
export function oneRowCheck<S extends ZodTypeAny, T>(
  columns: ColumnSpec[],
  schema: S,
  prepare: (input: output<S>) => T,
): (deps: unknown, key: unknown, rows: CsvRow[]) => Promise<Checked<T>> {
  return async (_deps, _key, rows) => {
    const out: Checked<T> = { prepared: [], errors: [] };
    for (const r of rows) {
      const { input, errors } = rowInputOf(columns, schema, r);
      if (errors) {
        out.errors.push(...errors);
        continue;
      }
      try {
        out.prepared.push({ row: r.row, input: prepare(input) });
      } catch (err) {
        out.errors.push(rowErrorOf(err, r.row));
      }
    }
    return out;
  };
}
