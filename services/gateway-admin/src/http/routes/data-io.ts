import { createHash } from 'node:crypto';
import { isUtf8 } from 'node:buffer';
import { Transform, type Readable } from 'node:stream';
import { z } from 'zod';
import { currentRequestId, ErrorCode, ValidationError, toWire } from '@paymesh/core';
import {
  DATA_EXPORT_ENTITIES,
  DATA_IMPORT_ENTITIES,
  DATA_IMPORT_MAX_BYTES,
  DATA_IMPORT_MAX_ROWS,
  billingStreamRpc,
  dataExportRequest,
  dataImportJob,
  dataImportReport,
  type DataImportEntity,
  type DataImportReport,
  type RpcInput,
} from '@paymesh/contracts';
import { callClientStream, callServerStream, envelopeOf, type EnvelopeFields } from '@paymesh/grpc';
import type { billing } from '@paymesh/proto';
import type { AdminDeps } from '../../app/deps';
import type { Principal } from '../../domain/principal';
import { dataImportRejected, dataImportResult } from '../responses/data-io';
import { ErrorAnswer, fileAnswer, resource, type OrgScope } from '../route-table';
import { actorOf, billingJson, toBilling } from './billing-rpc';
import { idParams } from './common';

/** Data import/export: scope `data_io:read` (templates) and `data_io:execute` (import, check, export). */
const dataIo = resource({ tag: 'Data import/export', scopePrefix: 'data_io' });

/** Bytes per gRPC message of an upload (well under gRPC's 4 MB message limit). */
const UPLOAD_CHUNK_BYTES = 256 * 1024;
/** How long one pass over a file (check or import) may take; 50,000 rows fit well inside. */
const IMPORT_DEADLINE_MS = 10 * 60_000;
/** How long an export stream may run (100,000 postings take well under a minute). */
const EXPORT_DEADLINE_MS = 30 * 60_000;

const importQuery = z
  .object({
    entityType: z
      .enum(DATA_IMPORT_ENTITIES)
      .describe('what the rows are: clients, invoices (drafts, one row per line, grouped by reference) or tax_rates'),
  })
  .strict();

const upload = {
  contentType: 'text/csv',
  maxBytes: DATA_IMPORT_MAX_BYTES,
  description: `The CSV file: UTF-8 (a byte order mark is accepted), comma-separated, header row first with the columns of GET /data-import-export/template/{entityType}, at most ${DATA_IMPORT_MAX_ROWS} data rows`,
};

type UploadMethod = 'importData' | 'startDataImport';

/** Sends the file to one of billing's upload RPCs (the envelope, then the bytes in chunks) and answers its JSON. */
async function sendFile<M extends UploadMethod>(
  deps: AdminDeps,
  org: OrgScope,
  principal: Principal,
  method: M,
  body: RpcInput<typeof billingStreamRpc, M>,
  file: Buffer,
): Promise<unknown> {
  const client = deps.clients.billing;
  function* messages(): Generator<billing.DataImportChunk> {
    yield { header: envelopeOf(toWire(org), { actor: actorOf(principal) }, body), data: Buffer.alloc(0) };
    for (let at = 0; at < file.length; at += UPLOAD_CHUNK_BYTES)
      yield { header: undefined, data: file.subarray(at, at + UPLOAD_CHUNK_BYTES) };
  }
  const res = await callClientStream(client, client[method], messages(), {
    deadlineMs: IMPORT_DEADLINE_MS,
    target: 'billing',
  });
  return JSON.parse(res.json);
}

/** One pass of billing over the file: a check (dryRun) or the import. */
async function pass(
  deps: AdminDeps,
  org: OrgScope,
  principal: Principal,
  entityType: DataImportEntity,
  file: Buffer,
  digest: string,
  dryRun: boolean,
): Promise<DataImportReport> {
  return dataImportReport.parse(
    await sendFile(deps, org, principal, 'importData', { entityType, dryRun, digest }, file),
  );
}

/**
 * The uploaded file checked by billing row by row (nothing written): 422 DATA_IMPORT_INVALID with
 * the row errors when any row is invalid.
 */
async function checkedUpload(
  deps: AdminDeps,
  org: OrgScope,
  principal: Principal,
  entityType: DataImportEntity,
  body: unknown,
) {
  const { file, digest } = readFile(body);
  const checked = await pass(deps, org, principal, entityType, file, digest, true);
  if (checked.invalidRows > 0) throw rejected(checked);
  return { file, digest, checked };
}

/** The uploaded file: not empty, valid UTF-8; its SHA-256 names it for idempotency. */
function readFile(body: unknown): { file: Buffer; digest: string } {
  const file = body as Buffer;
  if (file.length === 0) throw new ValidationError('body: the CSV file is empty', { field: 'body' });
  if (!isUtf8(file))
    throw new ValidationError('body: the file is not UTF-8 text; save the CSV as UTF-8', { field: 'body' });
  return { file, digest: createHash('sha256').update(file).digest('hex') };
}

function rejected(report: DataImportReport): ErrorAnswer {
  const requestId = currentRequestId();
  return new ErrorAnswer(422, {
    error: `${report.invalidRows} row(s) of the file are invalid (first: row ${report.errors[0]?.row ?? '?'}${report.errors[0]?.field ? `, ${report.errors[0].field}` : ''}: ${report.errors[0]?.error ?? ''}); nothing was imported`,
    code: ErrorCode.DATA_IMPORT_INVALID,
    ...(requestId ? { requestId } : {}),
    report,
  });
}

/**
 * Bytes out of one of billing's file streams (`DataExportChunk` messages), the first chunk read
 * before the answer starts, so a refused export is a 4xx, not a cut file.
 */
export async function fileStreamOf(messages: Readable) {
  const first = await new Promise<billing.DataExportChunk | null>((resolve, reject) => {
    const onError = (err: Error) => reject(err);
    messages.once('error', onError);
    messages.once('end', () => resolve(null));
    messages.once('readable', () => {
      messages.off('error', onError);
      resolve(messages.read() as billing.DataExportChunk | null);
    });
  });
  const bytes = new Transform({
    writableObjectMode: true,
    transform(chunk: billing.DataExportChunk, _enc, done) {
      done(null, Buffer.from(chunk.data));
    },
  });
  if (first) bytes.write(first);
  messages.on('error', (err) => bytes.destroy(err));
  messages.pipe(bytes);
  bytes.on('close', () => messages.destroy());
  return bytes;
}

type FileStreamMethod = 'exportData' | 'exportDatev' | 'exportGdpdu' | 'downloadDatevExport';

/** Bytes of one of billing's file streams (exports), for the request's organization; `fields`: who acts. */
export function billingFileStream<M extends FileStreamMethod>(
  deps: AdminDeps,
  org: OrgScope,
  method: M,
  fields: EnvelopeFields,
  body: RpcInput<typeof billingStreamRpc, M>,
) {
  const client = deps.clients.billing;
  return fileStreamOf(
    callServerStream(client, client[method], envelopeOf(toWire(org), fields, body), {
      deadlineMs: EXPORT_DEADLINE_MS,
      target: 'billing',
    }),
  );
}

const templateParams = z.object({
  entityType: z.enum(DATA_IMPORT_ENTITIES).describe('clients, invoices or tax_rates'),
});

export const dataIoRoutes = [
  dataIo({
    method: 'GET',
    path: '/data-import-export/template/:entityType',
    operationId: 'getDataImportTemplate',
    response: fileAnswer,
    file: { contentType: 'text/csv; charset=utf-8' },
    summary:
      'CSV template of an import: the header row (column names are the fields of the create route) and one example row',
    params: templateParams,
    async handler({ deps, org, params }) {
      const t = await billingJson(deps, org, 'dataImportTemplate', {
        body: { entityType: params.entityType },
      });
      return { bytes: Buffer.from(t.csv, 'utf8'), filename: t.filename };
    },
  }),
  dataIo({
    method: 'POST',
    path: '/data-import-export/import/validate',
    operationId: 'validateDataImport',
    action: 'execute',
    response: dataImportResult,
    summary:
      'Checks a CSV file row by row with the rules of the create route and writes nothing: every error with its row (header = row 1) and column',
    query: importQuery,
    upload,
    async handler({ deps, org, principal, query, body }) {
      const { file, digest } = readFile(body);
      return pass(deps, org, principal, query.entityType, file, digest, true);
    },
  }),
  dataIo({
    method: 'POST',
    path: '/data-import-export/import',
    operationId: 'importData',
    action: 'execute',
    response: dataImportResult,
    errors: [422],
    errorBodies: { 422: dataImportRejected },
    summary:
      'Imports a CSV file, all or nothing: any invalid row answers 422 DATA_IMPORT_INVALID with the row errors and nothing is written. Uploading the same file again creates nothing twice (the file digest and row number key every record)',
    query: importQuery,
    upload,
    async handler({ deps, org, principal, query, body }) {
      const { file, digest } = await checkedUpload(deps, org, principal, query.entityType, body);
      const done = await pass(deps, org, principal, query.entityType, file, digest, false);
      if (done.invalidRows > 0) throw rejected(done);
      return done;
    },
  }),
  dataIo({
    method: 'POST',
    path: '/data-import-export/import-jobs',
    operationId: 'startDataImport',
    action: 'execute',
    status: 202,
    response: dataImportJob,
    errors: [422],
    errorBodies: { 422: dataImportRejected },
    summary:
      'Imports a CSV file as a job a page can follow: the file is checked first (any invalid row answers 422 DATA_IMPORT_INVALID with the row errors and nothing is written), then the running job is answered at once and GET /data-import-export/import-jobs/{id} follows its progress (rows written of the rows of the file). One job per file: uploading the same file again answers its job, or resumes it when it failed or its process stopped; nothing is created twice',
    query: importQuery,
    upload,
    async handler({ deps, org, principal, query, body }) {
      const { file, digest, checked } = await checkedUpload(deps, org, principal, query.entityType, body);
      const header = { entityType: query.entityType, digest, rows: checked.rows };
      return dataImportJob.parse(await sendFile(deps, org, principal, 'startDataImport', header, file));
    },
  }),
  dataIo({
    method: 'GET',
    path: '/data-import-export/import-jobs/:id',
    operationId: 'getDataImport',
    action: 'execute',
    response: dataImportJob,
    summary:
      'One import job: status (running, completed, failed), progress (rows written of the rows of the file), and once completed the import report (created, alreadyImported)',
    params: idParams,
    handler: toBilling.idInBody('getDataImport'),
  }),
  dataIo({
    method: 'POST',
    path: '/data-import-export/export',
    operationId: 'exportData',
    action: 'execute',
    response: fileAnswer,
    file: { contentType: 'text/csv; charset=utf-8' },
    summary: `Exports ${DATA_EXPORT_ENTITIES.join(', ')} as CSV, streamed; text cells a spreadsheet would read as a formula are prefixed with '`,
    body: dataExportRequest,
    async handler({ deps, org, body }) {
      const stream = await billingFileStream(deps, org, 'exportData', {}, body);
      const day = new Date().toISOString().slice(0, 10);
      return { stream, filename: `${body.entityType}-${day}.csv` };
    },
  }),
];
