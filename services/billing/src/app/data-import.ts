import { Readable } from 'node:stream';
import { parse } from 'csv-parse';
import { isDomainError, ValidationError } from '@paymesh/core';
import {
  DATA_IMPORT_MAX_ERRORS,
  DATA_IMPORT_MAX_ROWS,
  type DataImportEntity,
  type DataImportHeader,
  type DataImportReport,
  type DataRowError,
} from '@paymesh/contracts';
import { headerErrors, IMPORT_LAYOUTS, type CsvRow } from '../domain/data-io';
import { actorOrSystem } from './client-history-log';
import type { DataIoDeps } from './data-io-port';
import type { OrgKey } from './deps';
import type { Importer, WriteContext } from './importers/importer';
import { clientImporter } from './importers/clients';
import { invoiceImporter } from './importers/invoices';
import { taxRateImporter } from './importers/tax-rates';

/** Data rows checked and written together (one store transaction per batch of clients). */
export const IMPORT_BATCH_ROWS = 500;

const IMPORTERS: Readonly<Record<DataImportEntity, Importer<unknown>>> = {
  clients: clientImporter as Importer<unknown>,
  invoices: invoiceImporter as Importer<unknown>,
  tax_rates: taxRateImporter as Importer<unknown>,
};

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
 * writing (a client or site deleted meanwhile) stops the import with 422. `onBatch` hears the
 * data rows written so far after each batch (an import job's progress).
 */
export async function importData(
  deps: DataIoDeps,
  key: OrgKey,
  header: DataImportHeader,
  actor: string | undefined,
  chunks: AsyncIterable<Uint8Array>,
  onBatch?: (rowsWritten: number) => Promise<void>,
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
  let rowsWritten = 0;
  const flush = async () => {
    if (batch.length === 0) return;
    const batchRows = batch.length;
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
    rowsWritten += batchRows;
    if (onBatch) await onBatch(rowsWritten);
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
