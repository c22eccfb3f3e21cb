import { z } from 'zod';
import { dataImportReport, dataRowError } from '@paymesh/contracts';
import { errorEnvelope } from '@paymesh/http';

/** One problem of one row of an imported file. */
const rowError = dataRowError.extend({
  row: dataRowError.shape.row.describe('row as a spreadsheet numbers it: the header is row 1, the first data row 2'),
  field: dataRowError.shape.field.describe(
    'the column (a field of the create route, e.g. address.country); null: the row as a whole',
  ),
  error: dataRowError.shape.error.describe('what is wrong'),
});

/** What a check or an import of a CSV file found and did. */
export const dataImportResult = dataImportReport.extend({
  digest: dataImportReport.shape.digest.describe(
    'SHA-256 of the file (hex): with the row number, the idempotency key of every record the file creates',
  ),
  rows: dataImportReport.shape.rows.describe('data rows read (header and blank rows not counted)'),
  records: dataImportReport.shape.records.describe(
    'valid records the file holds (invoices: one draft per reference; otherwise one per row)',
  ),
  invalidRows: dataImportReport.shape.invalidRows.describe('rows with at least one error'),
  errors: z.array(rowError).describe('the first 1000 errors, in row order'),
  errorsTruncated: dataImportReport.shape.errorsTruncated.describe('more errors were found than listed'),
  created: dataImportReport.shape.created.describe('records written by this request (0 for a check)'),
  alreadyImported: dataImportReport.shape.alreadyImported.describe(
    'records an earlier upload of the same file already wrote; skipped',
  ),
});

/** 422 of an import: the envelope (code DATA_IMPORT_INVALID) and the check's report with every row error. */
export const dataImportRejected = errorEnvelope.extend({
  report: dataImportResult.describe('the check of the file: its row errors'),
});
