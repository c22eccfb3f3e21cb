import { Readable } from 'node:stream';
import { parse } from 'csv-parse';
import { ConflictError, ErrorCode, isDomainError, newObjectId, ValidationError } from '@paymesh/core';
import {
  clientCreate,
  DATA_IMPORT_MAX_ERRORS,
  DATA_IMPORT_MAX_ROWS,
  invoiceCreate,
  taxRateCreate,
  type DataImportEntity,
  type DataImportHeader,
  type DataImportReport,
  type DataRowError,
  type InvoiceCreate,
  type TaxRateCreate,
} from '@paymesh/contracts';
import type { ClientDoc } from '../domain/client';
import { diffClient } from '../domain/client-history';
import { assertValidTaxInfo, newPlainClient, type PlainClient } from '../domain/client-plain';
import { headerErrors, IMPORT_LAYOUTS, issuesToErrors, objectOfCells, type CsvRow } from '../domain/data-io';
import type { InvoiceDoc } from '../domain/invoice';
import { CLIENT_HISTORY, CLIENTS, INVOICES } from '../store/collections';
import { actorOrSystem, type ClientHistoryDoc } from './client-history-log';
import { sealClient } from './client-codec';
import type { DataIoDeps, TaxRateIdentity } from './data-io-port';
import type { OrgKey } from './deps';
import { draftFields } from './draft-invoice';

/** Data rows checked and written together (one store transaction per batch of clients). */
export const IMPORT_BATCH_ROWS = 500;

/** A record a group of rows describes, checked and ready to write. */
interface Prepared<T> {
  /** First row of the record: with the file digest, its idempotency key. */
  row: number;
  input: T;
}

interface Checked<T> {
  prepared: Prepared<T>[];
  errors: DataRowError[];
}

/** How one entity type checks and writes a batch of rows. */
interface Importer<T> {
  check(deps: DataIoDeps, key: OrgKey, rows: CsvRow[]): Promise<Checked<T>>;
  /** Writes what is not written yet; answers [created, already imported]. */
  write(deps: DataIoDeps, key: OrgKey, ctx: WriteContext, records: Prepared<T>[]): Promise<[number, number]>;
}

interface WriteContext {
  digest: string;
  actor: string;
  /** Tax rates already there (code|validFrom), read once per import. */
  taxRates?: Set<string>;
}

const importKeyOf = (digest: string, row: number) => `${digest}:${row}`;

/** A DomainError from a row's domain checks as a row error; anything else is not the row's fault. */
function rowErrorOf(err: unknown, row: number): DataRowError {
  if (isDomainError(err) && (err.kind === 'validation' || err.kind === 'not_found' || err.kind === 'unprocessable')) {
    const field = err.field ?? null;
    const message = field && err.message.startsWith(`${field}: `) ? err.message.slice(field.length + 2) : err.message;
    return { row, field, error: message };
  }
  throw err;
}

// ---------------------------------------------------------------------------------------------
// Clients

const clientImporter: Importer<PlainClient> = {
  async check(_deps, _key, rows) {
    const { columns } = IMPORT_LAYOUTS.clients;
    const out: Checked<PlainClient> = { prepared: [], errors: [] };
    for (const r of rows) {
      const { value, errors } = objectOfCells(columns, r.cells, r.row);
      if (errors.length > 0) {
        out.errors.push(...errors);
        continue;
      }
      const parsed = clientCreate.safeParse(value);
      if (!parsed.success) {
        out.errors.push(...issuesToErrors(columns, parsed.error.issues, r.row));
        continue;
      }
      try {
        const plain = newPlainClient(parsed.data);
        assertValidTaxInfo(plain.taxInfo);
        out.prepared.push({ row: r.row, input: plain });
      } catch (err) {
        out.errors.push(rowErrorOf(err, r.row));
      }
    }
    return out;
  },
  async write(deps, key, ctx, records) {
    const keys = records.map((r) => importKeyOf(ctx.digest, r.row));
    const clients = deps.store.collection<ClientDoc & { importKey?: string }>(CLIENTS);
    for (let attempt = 0; ; attempt++) {
      const seen = await clients.find(
        { organizationId: key.organizationId, mode: key.mode, importKey: { $in: keys } },
        { limit: keys.length },
      );
      const done = new Set(seen.items.map((d) => d.importKey));
      const todo = records.filter((r) => !done.has(importKeyOf(ctx.digest, r.row)));
      if (todo.length === 0) return [0, records.length];
      const now = deps.clock.now().toISOString();
      try {
        const made = todo.map((r) => {
          const id = newObjectId();
          const doc = {
            id,
            organizationId: key.organizationId,
            mode: key.mode,
            ...sealClient(deps, key, id, r.input),
            importKey: importKeyOf(ctx.digest, r.row),
            createdAt: now,
            updatedAt: now,
          };
          const entry = {
            id: newObjectId(),
            organizationId: key.organizationId,
            mode: key.mode,
            clientId: id,
            at: now,
            actor: ctx.actor,
            action: 'create' as const,
            changes: diffClient(null, r.input),
          };
          return { doc, entry };
        });
        const docs = made.map((m) => m.doc);
        const history = made.map((m) => m.entry);
        // The batch's clients and their first history entries: two statements, one transaction.
        await deps.store.transaction(async (tx) => {
          await tx.collection<ClientDoc & { importKey?: string }>(CLIENTS).insertMany(docs);
          await tx.collection<ClientHistoryDoc>(CLIENT_HISTORY).insertMany(history);
        });
        return [todo.length, records.length - todo.length];
      } catch (err) {
        // The same file imported at the same time wrote some of these rows first: skip what it wrote.
        if (attempt < 2 && err instanceof ConflictError && err.code === ErrorCode.DUPLICATE_KEY) continue;
        throw err;
      }
    }
  },
};

// ---------------------------------------------------------------------------------------------
// Invoices (drafts): the rows of one `reference` are the lines of one draft.

function invoiceGroups(rows: CsvRow[]): CsvRow[][] {
  const groups: CsvRow[][] = [];
  for (const r of rows) {
    const last = groups[groups.length - 1];
    if (last && last[0]?.cells.reference === r.cells.reference) last.push(r);
    else groups.push([r]);
  }
  return groups;
}

const invoiceImporter: Importer<InvoiceCreate> = {
  async check(deps, key, rows) {
    const { columns } = IMPORT_LAYOUTS.invoices;
    const head = columns.filter((c) => !c.header.startsWith('item.') && c.header !== 'reference');
    const line = columns.filter((c) => c.header.startsWith('item.'));
    const out: Checked<InvoiceCreate> = { prepared: [], errors: [] };
    for (const group of invoiceGroups(rows)) {
      const [first] = group;
      if (!first) continue;
      if (!first.cells.reference?.trim()) {
        for (const r of group)
          out.errors.push({
            row: r.row,
            field: 'reference',
            error: 'required: the rows of one invoice share a reference',
          });
        continue;
      }
      const errors: DataRowError[] = [];
      const draft = objectOfCells(head, first.cells, first.row);
      errors.push(...draft.errors);
      // Invoice columns are given on the first row of a reference; later rows leave them empty or repeat them.
      for (const r of group.slice(1)) {
        for (const c of head) {
          const v = r.cells[c.header]?.trim() ?? '';
          if (v !== '' && v !== (first.cells[c.header]?.trim() ?? ''))
            errors.push({
              row: r.row,
              field: c.header,
              error: `differs from row ${first.row}, the first row of reference ${first.cells.reference}`,
            });
        }
      }
      const items = group.map((r) => {
        const item = objectOfCells(line, r.cells, r.row, 'item.');
        errors.push(...item.errors);
        return item.value;
      });
      if (errors.length > 0) {
        out.errors.push(...errors);
        continue;
      }
      const parsed = invoiceCreate.safeParse({ ...draft.value, items });
      if (!parsed.success) {
        for (const issue of parsed.error.issues) {
          const [top, index, ...rest] = issue.path;
          if (top === 'items' && typeof index === 'number' && group[index]) {
            out.errors.push({
              row: group[index].row,
              field: rest.length ? `item.${rest.join('.')}` : 'item',
              error: issue.message,
            });
          } else {
            out.errors.push(...issuesToErrors(columns, [issue], first.row));
          }
        }
        continue;
      }
      try {
        // The create route's own checks: the site and the client exist, the tax engine prices the lines.
        await draftFields(deps, key, parsed.data);
        out.prepared.push({ row: first.row, input: parsed.data });
      } catch (err) {
        out.errors.push(rowErrorOf(err, first.row));
      }
    }
    return out;
  },
  async write(deps, key, ctx, records) {
    const invoices = deps.store.collection<InvoiceDoc & { importKey?: string }>(INVOICES);
    const keys = records.map((r) => importKeyOf(ctx.digest, r.row));
    const seen = await invoices.find(
      { organizationId: key.organizationId, mode: key.mode, importKey: { $in: keys } },
      { limit: keys.length },
    );
    const done = new Set(seen.items.map((d) => d.importKey));
    let created = 0;
    for (const r of records) {
      const importKey = importKeyOf(ctx.digest, r.row);
      if (done.has(importKey)) continue;
      const fields = await draftFields(deps, key, r.input);
      const now = deps.clock.now().toISOString();
      try {
        await invoices.insert({
          organizationId: key.organizationId,
          mode: key.mode,
          status: 'draft',
          number: null,
          ...fields,
          notes: r.input.notes ?? null,
          amountPaid: 0,
          payments: [],
          transactionId: null,
          sourceTransactionId: null,
          snapshot: null,
          corrections: [],
          creditNoteIds: [],
          createdAt: now,
          updatedAt: now,
          issuedAt: null,
          voidedAt: null,
          voidReason: null,
          importKey,
        });
        created++;
      } catch (err) {
        // Written meanwhile by the same file uploaded again: that draft is this row's.
        if (err instanceof ConflictError && err.code === ErrorCode.DUPLICATE_KEY) continue;
        throw err;
      }
    }
    return [created, records.length - created];
  },
};

// ---------------------------------------------------------------------------------------------
// Tax rates: created through the tax service; a rate is the same when code and first day are (as the tax service sees it).

const rateKey = (r: TaxRateIdentity) => `${r.code}|${r.validFrom}`;

const taxRateImporter: Importer<TaxRateCreate> = {
  async check(_deps, _key, rows) {
    const { columns } = IMPORT_LAYOUTS.tax_rates;
    const out: Checked<TaxRateCreate> = { prepared: [], errors: [] };
    for (const r of rows) {
      const { value, errors } = objectOfCells(columns, r.cells, r.row);
      if (errors.length > 0) {
        out.errors.push(...errors);
        continue;
      }
      const parsed = taxRateCreate.safeParse(value);
      if (!parsed.success) out.errors.push(...issuesToErrors(columns, parsed.error.issues, r.row));
      else out.prepared.push({ row: r.row, input: parsed.data });
    }
    return out;
  },
  async write(deps, key, ctx, records) {
    const existing = ctx.taxRates ?? new Set((await deps.dataIo.taxRates(key)).map(rateKey));
    ctx.taxRates = existing;
    let created = 0;
    for (const r of records) {
      const k = rateKey(r.input);
      if (existing.has(k)) continue;
      try {
        await deps.dataIo.createTaxRate(key, r.input);
      } catch (err) {
        if (
          isDomainError(err) &&
          (err.kind === 'validation' || err.kind === 'conflict' || err.kind === 'unprocessable')
        ) {
          const e = rowErrorOf(
            err.kind === 'conflict' ? new ValidationError(err.message, { field: err.field }) : err,
            r.row,
          );
          throw new ValidationError(
            `row ${e.row}${e.field ? ` (${e.field})` : ''}: the tax service refused the rate: ${e.error}; the rows before it were imported, upload the corrected file again`,
            {
              field: e.field ?? undefined,
            },
          );
        }
        throw err;
      }
      existing.add(k);
      created++;
    }
    return [created, records.length - created];
  },
};

const IMPORTERS: Readonly<Record<DataImportEntity, Importer<unknown>>> = {
  clients: clientImporter as Importer<unknown>,
  invoices: invoiceImporter as Importer<unknown>,
  tax_rates: taxRateImporter as Importer<unknown>,
};

// ---------------------------------------------------------------------------------------------

/** The file's bytes after the header message. */
async function* fileBytes(chunks: AsyncIterable<Uint8Array>): AsyncGenerator<Buffer> {
  for await (const chunk of chunks) if (chunk.length > 0) yield Buffer.from(chunk);
}

/**
 * Reads a CSV file streamed in chunks and checks every row with the rules of the create routes;
 * unless `dryRun`, writes the records batch by batch. Rows are parsed as a stream and held one
 * batch at a time. Every record created carries the file's digest and its first row as its
 * idempotency key, so a repeated or resumed upload of the same file skips what is written.
 * The caller imports only a file a dry run found valid (all or nothing); an invalid row met while
 * writing (a client or site deleted meanwhile) stops the import with 422.
 */
export async function importData(
  deps: DataIoDeps,
  key: OrgKey,
  header: DataImportHeader,
  actor: string | undefined,
  chunks: AsyncIterable<Uint8Array>,
): Promise<DataImportReport> {
  const layout = IMPORT_LAYOUTS[header.entityType];
  const importer = IMPORTERS[header.entityType];
  const ctx: WriteContext = { digest: header.digest, actor: actorOrSystem(actor) };
  const report: DataImportReport = {
    entityType: header.entityType,
    dryRun: header.dryRun,
    digest: header.digest,
    rows: 0,
    records: 0,
    invalidRows: 0,
    errors: [],
    errorsTruncated: false,
    created: 0,
    alreadyImported: 0,
  };
  const addErrors = (errors: DataRowError[]) => {
    report.invalidRows += new Set(errors.map((e) => e.row)).size;
    for (const e of errors) {
      if (report.errors.length < DATA_IMPORT_MAX_ERRORS) report.errors.push(e);
      else report.errorsTruncated = true;
    }
  };

  const parser = Readable.from(fileBytes(chunks)).pipe(
    parse({ bom: true, relax_column_count: true, max_record_size: 1024 * 1024 }),
  );
  let columns: string[] | null = null;
  let row = 1;
  let batch: CsvRow[] = [];
  const flush = async () => {
    if (batch.length === 0) return;
    const checked = await importer.check(deps, key, batch);
    batch = [];
    report.records += checked.prepared.length;
    if (checked.errors.length > 0) {
      checked.errors.sort((a, b) => a.row - b.row);
      addErrors(checked.errors);
    }
    if (header.dryRun || report.invalidRows > 0) return;
    const [created, already] = await importer.write(deps, key, ctx, checked.prepared);
    report.created += created;
    report.alreadyImported += already;
  };
  try {
    for await (const record of parser as AsyncIterable<string[]>) {
      if (columns === null) {
        columns = record.map((h) => h.trim());
        const problems = headerErrors(header.entityType, columns);
        if (problems.length > 0) {
          addErrors(problems);
          break;
        }
        continue;
      }
      row++;
      // A blank line is a blank spreadsheet row: counted, not imported.
      if (record.length === 1 && record[0]?.trim() === '') continue;
      report.rows++;
      if (report.rows > DATA_IMPORT_MAX_ROWS)
        throw new ValidationError(
          `the file has more than ${DATA_IMPORT_MAX_ROWS} data rows; split it into smaller files`,
          { field: 'file' },
        );
      if (record.length > columns.length) {
        addErrors([
          { row, field: null, error: `the row has ${record.length} cells, the header ${columns.length} columns` },
        ]);
        continue;
      }
      const cells: Record<string, string> = {};
      columns.forEach((c, i) => (cells[c] = record[i] ?? ''));
      // Keep a draft's lines in one batch: cut only where the reference changes.
      if (
        batch.length >= IMPORT_BATCH_ROWS &&
        (!layout.groupBy || batch.at(-1)?.cells[layout.groupBy] !== cells[layout.groupBy])
      )
        await flush();
      batch.push({ row, cells });
      if (batch.length > IMPORT_BATCH_ROWS * 2)
        throw new ValidationError(
          `reference ${cells[layout.groupBy ?? ''] ?? ''}: one invoice has more than ${IMPORT_BATCH_ROWS} lines`,
          { field: layout.groupBy ?? 'file' },
        );
    }
    await flush();
  } catch (err) {
    if (isDomainError(err)) throw err;
    // csv-parse: unclosed quote, a record too large.
    const e = err as { code?: string; message?: string; lines?: number };
    if (typeof e.code === 'string' && e.code.startsWith('CSV_'))
      throw new ValidationError(`file: not a readable CSV file near line ${e.lines ?? '?'}: ${e.message ?? e.code}`, {
        field: 'file',
      });
    throw err;
  }
  if (columns === null) addErrors([{ row: 1, field: null, error: 'the file is empty: a header row is required' }]);
  deps.logger.info(
    {
      organizationId: key.organizationId,
      mode: key.mode,
      entityType: header.entityType,
      dryRun: header.dryRun,
      rows: report.rows,
      invalidRows: report.invalidRows,
      created: report.created,
      alreadyImported: report.alreadyImported,
    },
    'data import read',
  );
  return report;
}
