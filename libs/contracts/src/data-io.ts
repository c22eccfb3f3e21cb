import { z } from 'zod';
import { objectId } from './object-id';

/**
 * Data import/export (Admin API `/data-import-export`, billing service). Imports are CSV files
 * (UTF-8, a byte order mark accepted, header row first); exports are CSV files streamed from
 * billing. gRPC carries these schemas as JSON.
 */

/** Entity types a CSV file can be imported into (invoices: drafts). */
export const DATA_IMPORT_ENTITIES = ['clients', 'invoices', 'tax_rates'] as const;
export type DataImportEntity = (typeof DATA_IMPORT_ENTITIES)[number];

/** Entity types that can be exported. */
export const DATA_EXPORT_ENTITIES = ['clients', 'invoices', 'credit_notes', 'transactions'] as const;
export type DataExportEntity = (typeof DATA_EXPORT_ENTITIES)[number];

/** Largest import file in bytes (10 MiB). */
export const DATA_IMPORT_MAX_BYTES = 10 * 1024 * 1024;
/** Most data rows of one import file. */
export const DATA_IMPORT_MAX_ROWS = 50_000;
/** Most row errors one answer lists (the count of invalid rows is always complete). */
export const DATA_IMPORT_MAX_ERRORS = 1_000;

const isoDate = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date YYYY-MM-DD');

/** Body of `DataImportTemplate`. */
export const dataTemplateRequest = z.object({ entityType: z.enum(DATA_IMPORT_ENTITIES) }).strict();

/** A template: the CSV text (header and one example row) and the name it is offered under. */
export const dataTemplate = z.object({ filename: z.string(), csv: z.string() });
export type DataTemplate = z.infer<typeof dataTemplate>;

/** The header message of `ImportData`. */
export const dataImportHeader = z
  .object({
    entityType: z.enum(DATA_IMPORT_ENTITIES),
    /** true: check every row and write nothing. */
    dryRun: z.boolean(),
    /** SHA-256 of the file's bytes (hex): with the row number, the idempotency key of what a row creates. */
    digest: z.string().regex(/^[0-9a-f]{64}$/),
  })
  .strict();
export type DataImportHeader = z.infer<typeof dataImportHeader>;

/** One problem of one row: `row` as a spreadsheet numbers it (the header is row 1), `field` the column (null: the row as a whole). */
export const dataRowError = z.object({ row: z.number().int().min(1), field: z.string().nullable(), error: z.string() });
export type DataRowError = z.infer<typeof dataRowError>;

/** What a check or an import of a file found and did. */
export const dataImportReport = z.object({
  entityType: z.enum(DATA_IMPORT_ENTITIES),
  dryRun: z.boolean(),
  /** SHA-256 of the file (hex). */
  digest: z.string(),
  /** Data rows read (the header not counted). */
  rows: z.number().int(),
  /** Records the file holds (invoices: one per import reference; otherwise one per row). */
  records: z.number().int(),
  /** Rows with at least one error. */
  invalidRows: z.number().int(),
  /** The first DATA_IMPORT_MAX_ERRORS errors, in row order. */
  errors: z.array(dataRowError),
  /** More errors were found than listed. */
  errorsTruncated: z.boolean(),
  /** Records written by this request (0 for a check). */
  created: z.number().int(),
  /** Records an earlier upload of the same file already wrote (skipped). */
  alreadyImported: z.number().int(),
});
export type DataImportReport = z.infer<typeof dataImportReport>;

/** The header message of `StartDataImport`: a file a check found valid, imported as a job. */
export const dataImportJobHeader = z
  .object({
    entityType: z.enum(DATA_IMPORT_ENTITIES),
    digest: z.string().regex(/^[0-9a-f]{64}$/),
    /** Data rows of the file (the check's count): the job's progress total. */
    rows: z.number().int().min(0),
  })
  .strict();
export type DataImportJobHeader = z.infer<typeof dataImportJobHeader>;

/** Body of `GetDataImport`. */
export const dataImportJobId = z.object({ id: objectId }).strict();

/** An import running as a job: one per organization, mode, entity type and file (its digest). */
export const dataImportJob = z.object({
  id: z.string(),
  entityType: z.enum(DATA_IMPORT_ENTITIES),
  digest: z.string(),
  status: z.enum(['running', 'completed', 'failed']),
  /** Data rows read and written of the file's rows. */
  progress: z.object({ done: z.number().int(), total: z.number().int() }),
  /** Completed: what the import did (created, alreadyImported). */
  report: dataImportReport.nullable(),
  /** Failed: why (starting the same file again resumes it). */
  error: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
  completedAt: z.string().nullable(),
});
export type DataImportJob = z.infer<typeof dataImportJob>;

/** Body of `ExportData`: which records, filtered. */
export const dataExportRequest = z
  .object({
    entityType: z.enum(DATA_EXPORT_ENTITIES),
    /** First day included (creation day for clients and transactions, issue day for invoices and credit notes; UTC). */
    from: isoDate.optional(),
    /** Last day included. */
    to: isoDate.optional(),
    /** Invoices: draft, issued, partially_paid, paid, void; transactions: the numeric status; credit notes: void, refund, chargeback (kind). */
    status: z.string().min(1).max(40).optional(),
    /** Invoices and transactions: one site. */
    siteId: objectId.optional(),
  })
  .strict()
  .refine((r) => r.from === undefined || r.to === undefined || r.from <= r.to, {
    message: 'from must not be after to',
    path: ['to'],
  });
export type DataExportRequest = z.infer<typeof dataExportRequest>;
