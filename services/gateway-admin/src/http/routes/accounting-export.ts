import { z } from 'zod';
import {
  billingStreamRpc,
  datevExportPage,
  datevExportRecord,
  datevExportRequest,
  gdpduExportRequest,
  type RpcInput,
} from '@paymesh/contracts';
import type { AdminDeps } from '../../app/deps';
import type { Principal } from '../../domain/principal';
import { fileAnswer, resource, type OrgScope } from '../route-table';
import { actorOf, toBilling } from './billing-rpc';
import { idParams } from './common';
import { billingFileStream } from './data-io';

/**
 * Exports for the accountant and the tax auditor: scope `accounting_export:read` (the record of
 * DATEV exports) and `accounting_export:execute` (DATEV and GDPdU downloads). docs/datev-gdpdu.md.
 */
const accounting = resource({ tag: 'Accounting exports', scopePrefix: 'accounting_export' });

/** One of billing's export streams, with who asks (audit). */
function stream<M extends 'exportDatev' | 'exportGdpdu' | 'downloadDatevExport'>(
  deps: AdminDeps,
  org: OrgScope,
  principal: Principal,
  method: M,
  body: RpcInput<typeof billingStreamRpc, M>,
) {
  return billingFileStream(deps, org, method, { actor: actorOf(principal) }, body);
}

const listQuery = z
  .object({
    page: z.coerce.number().int().min(1).default(1),
    limit: z.coerce.number().int().min(1).max(100).default(20),
  })
  .strict();

export const accountingExportRoutes = [
  accounting({
    method: 'POST',
    path: '/accounting/datev/exports',
    operationId: 'exportDatev',
    action: 'execute',
    response: fileAnswer,
    file: { contentType: 'application/zip' },
    errors: [409, 422],
    summary:
      'DATEV export (EXTF 700): a zip of Buchungsstapel files (data category 21, format version 13; one posting per invoice tax group, credit note tax group, payment, refund and chargeback; at most 99,999 per file) and the Debitoren/Kreditoren master data (category 16) of the clients booked. Windows-1252, semicolons, CRLF. The range lies in one fiscal year (to: today, from: the first day of its fiscal year by default); select=not_exported leaves out what an earlier completed export delivered. Every export is recorded (GET /accounting/datev/exports). 422 DATEV_SETTINGS_MISSING without adviser and client numbers; 409 DATEV_EXPORT_RUNNING while another export runs',
    body: datevExportRequest,
    async handler({ deps, org, principal, body }) {
      const bytes = await stream(deps, org, principal, 'exportDatev', body);
      const day = new Date().toISOString().slice(0, 10).replaceAll('-', '');
      return { stream: bytes, filename: `DATEV-${day}.zip` };
    },
  }),
  accounting({
    method: 'GET',
    path: '/accounting/datev/exports',
    operationId: 'listDatevExports',
    response: datevExportPage,
    summary:
      'The recorded DATEV exports, newest first: range, selection, status (running, completed, failed), posting counts by kind, files, SHA-256 digest and size of the zip delivered',
    query: listQuery,
    handler: toBilling.query('listDatevExports'),
  }),
  accounting({
    method: 'POST',
    path: '/accounting/datev/export-jobs',
    operationId: 'startDatevExport',
    action: 'execute',
    status: 202,
    errors: [409, 422],
    response: datevExportRecord,
    summary:
      'Start a DATEV export that runs on after the answer (same body, checks and record as POST /accounting/datev/exports): answers the running export, whose progress (documents read of those to read) GET /accounting/datev/exports/{id} follows; once completed its zip is kept and downloaded from GET /accounting/datev/exports/{id}/file. 409 DATEV_EXPORT_RUNNING while another export runs',
    body: datevExportRequest,
    handler: toBilling.bodyActing('startDatevExport'),
  }),
  accounting({
    method: 'GET',
    path: '/accounting/datev/exports/:id',
    operationId: 'getDatevExport',
    response: datevExportRecord,
    summary:
      'One recorded DATEV export: status, progress (documents read of those to read), counts, digest, and whether its zip was kept for download (file)',
    params: idParams,
    handler: toBilling.idInBody('getDatevExport'),
  }),
  accounting({
    method: 'GET',
    path: '/accounting/datev/exports/:id/file',
    operationId: 'downloadDatevExport',
    action: 'execute',
    role: 'Editor',
    response: fileAnswer,
    file: { contentType: 'application/zip' },
    errors: [409],
    summary:
      'The kept zip of a DATEV export started as a job (the same bytes as its digest); 409 DATEV_EXPORT_NOT_KEPT while it runs, when it failed, or when it was streamed by POST /accounting/datev/exports and not kept',
    params: idParams,
    async handler({ deps, org, principal, params }) {
      const bytes = await stream(deps, org, principal, 'downloadDatevExport', { id: params.id });
      return { stream: bytes, filename: `DATEV-${params.id}.zip` };
    },
  }),
  accounting({
    method: 'POST',
    path: '/accounting/gdpdu/exports',
    operationId: 'exportGdpdu',
    action: 'execute',
    response: fileAnswer,
    file: { contentType: 'application/zip' },
    errors: [503],
    summary:
      'GDPdU / GoBD Z3 tax-audit export of a fiscal year: a zip with index.xml (description standard of 2002-08-01, DTD gdpdu-01-08-2002.dtd in the zip) and the tables it describes: clients, invoices, invoice lines, credit notes, payments and the tax-record ledger (semicolons, decimal comma, DD.MM.YYYY, UTF-8)',
    body: gdpduExportRequest,
    async handler({ deps, org, principal, body }) {
      const bytes = await stream(deps, org, principal, 'exportGdpdu', body);
      return { stream: bytes, filename: `GDPdU-${body.fiscalYear}.zip` };
    },
  }),
];
