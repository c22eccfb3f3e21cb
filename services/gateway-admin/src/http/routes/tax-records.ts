import { z } from 'zod';
import {
  RECOGNITION_MODES,
  TAX_RECORD_ENTRY_TYPES,
  TAX_RECORD_SOURCE_KINDS,
  type TaxRecordListQuery,
} from '@paymesh/contracts';
import type { AdminDeps } from '../../app/deps';
import {
  rebuildJobView,
  taxRecordPage as recordPageResponse,
  taxRecordRebuildJobResponse,
  taxRecordResponse,
  taxRecordView,
} from '../responses/tax-records';
import { resource, type OrgScope } from '../route-table';
import { idParams, noBody, noParameters, objectId, orgRpc, pageQuery } from './common';
import { billingJson } from './billing-rpc';
import { taxJson } from './tax-rpc';

/** A calendar day YYYY-MM-DD that exists. */
const day = (field: string) =>
  z
    .string()
    .regex(/^\d{4}-\d{2}-\d{2}$/, `${field} must be a date YYYY-MM-DD`)
    .refine((v) => {
      const d = new Date(`${v}T00:00:00.000Z`);
      return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === v;
    }, `${field} is not a valid date`);

const listQuery = z.object({
  ...pageQuery().shape,
  startDate: day('startDate').optional().describe('tax point from, inclusive'),
  endDate: day('endDate').optional().describe('tax point to, inclusive'),
  sourceKind: z.enum(TAX_RECORD_SOURCE_KINDS).optional(),
  recognitionMode: z.enum(RECOGNITION_MODES).optional(),
  entryType: z.enum(TAX_RECORD_ENTRY_TYPES).optional(),
  sourceId: objectId('sourceId').optional(),
  linkedInvoiceId: objectId('linkedInvoiceId')
    .optional()
    .describe(
      'entries of an invoice and of its voids and credit notes, whether or not billing still knows the invoice',
    ),
  linkedTransactionId: objectId('linkedTransactionId')
    .optional()
    .describe('entries of a transaction and of the invoices it paid'),
});

async function listRecords(
  deps: AdminDeps,
  org: OrgScope,
  body: Partial<TaxRecordListQuery> & { page: number; limit: number },
) {
  const res = await taxJson(deps, org, 'listTaxRecords', { body });
  return { items: res.data.map(taxRecordView), total: res.total, page: res.page, limit: res.limit };
}

/** Tax records: scope `tax_record:read`, rebuilds `tax_record:execute`. */
/** Handler of a row answering the ledger rebuild job the RPC answers (the latest one, or the one started). */
const rebuildJob =
  (method: 'getTaxRecordRebuild' | 'startTaxRecordRebuild') =>
  async ({ deps, org }: { deps: AdminDeps; org: OrgScope }) =>
    rebuildJobView(await taxJson(deps, org, method, {}));

const records = resource({ tag: 'Tax records', scopePrefix: 'tax_record' });

export const taxRecordRoutes = [
  records({
    method: 'GET',
    path: '/tax/records',
    operationId: 'listTaxRecords',
    response: recordPageResponse,
    summary:
      'List ledger entries, newest tax point first (startDate, endDate, sourceKind, recognitionMode, entryType, sourceId, linkedInvoiceId, linkedTransactionId, page, limit)',
    query: listQuery,
    async handler({ deps, org, query }) {
      return listRecords(deps, org, query);
    },
  }),
  records({
    method: 'GET',
    path: '/tax/records/rebuild',
    operationId: 'getLatestTaxRecordRebuild',
    response: taxRecordRebuildJobResponse,
    summary: 'The latest ledger rebuild job and its progress',
    handler: rebuildJob('getTaxRecordRebuild'),
  }),
  records({
    method: 'GET',
    path: '/tax/records/rebuild/:jobId',
    operationId: 'getTaxRecordRebuild',
    response: taxRecordRebuildJobResponse,
    summary: 'A ledger rebuild job and its progress',
    params: z.object({ jobId: objectId('jobId') }),
    async handler({ deps, org, params }) {
      return rebuildJobView(await taxJson(deps, org, 'getTaxRecordRebuild', { id: params.jobId }));
    },
  }),
  records({
    method: 'POST',
    path: '/tax/records/rebuild',
    operationId: 'startTaxRecordRebuild',
    action: 'execute',
    status: 202,
    errors: [409],
    response: taxRecordRebuildJobResponse,
    summary:
      'Re-derive the ledger from its stored source events: missing entries are written, differing ones reported, none rewritten. Answers the job already queued or running, if any',
    // Takes no parameters: anything sent along is refused rather than ignored.
    query: noParameters,
    body: noBody,
    handler: rebuildJob('startTaxRecordRebuild'),
  }),
  records({
    method: 'GET',
    path: '/tax/records/:id',
    operationId: 'getTaxRecord',
    response: taxRecordResponse,
    summary: 'One ledger entry',
    params: idParams,
    async handler({ deps, org, params }) {
      return taxRecordView(await taxJson(deps, org, 'getTaxRecord', { id: params.id }));
    },
  }),
  records({
    method: 'GET',
    path: '/transactions/:id/tax-records',
    operationId: 'listTransactionTaxRecords',
    response: recordPageResponse,
    summary: 'Ledger entries of a transaction and of invoices it paid (404 when the transaction does not exist)',
    params: idParams,
    query: pageQuery(),
    async handler({ deps, org, params, query }) {
      // The transaction must exist in this organization and mode (checkout answers 404 otherwise).
      await orgRpc(deps, org, 'checkoutPayments', (c) => c.getTransaction, { id: params.id });
      return listRecords(deps, org, { ...query, linkedTransactionId: params.id });
    },
  }),
  records({
    method: 'GET',
    path: '/invoices/:id/tax-records',
    operationId: 'listInvoiceTaxRecords',
    response: recordPageResponse,
    summary: 'Ledger entries of an invoice and of its voids and credit notes (404 when the invoice does not exist)',
    params: idParams,
    query: pageQuery(),
    async handler({ deps, org, params, query }) {
      // The invoice must exist in this organization and mode (billing answers 404 otherwise).
      await billingJson(deps, org, 'getInvoice', { id: params.id });
      return listRecords(deps, org, { ...query, linkedInvoiceId: params.id });
    },
  }),
];
