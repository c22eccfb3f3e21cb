import { z } from 'zod';
import { objectId } from '@paymesh/http';
import {
  INVOICE_STATUSES,
  invoiceCorrection,
  invoiceCreate,
  invoiceFromTransaction,
  invoiceLinkTransaction,
  invoiceNotesUpdate,
  invoiceUpdate,
  invoiceVoid,
} from '@paymesh/contracts';
import { invoiceDeletedResponse, invoicePageResponse, invoiceResponse } from '../responses/invoices';
import { resource } from '../route-table';
import { idParams, noBody, pageQuery, queryDay } from './common';
import { billingJson, toBilling } from './billing-rpc';

const amount = (name: string) =>
  z.coerce
    .number({ invalid_type_error: `${name} must be an integer in minor units` })
    .int(`${name} must be an integer in minor units`)
    .min(0, `${name} must be 0 or more`)
    .max(Number.MAX_SAFE_INTEGER, `${name} is too large`);

const listQuery = z
  .object({
    status: z.enum(INVOICE_STATUSES).optional(),
    clientId: objectId('clientId').optional(),
    siteId: objectId('siteId').optional(),
    startDate: queryDay.optional().describe('issue date from (inclusive)'),
    endDate: queryDay.optional().describe('issue date to (inclusive)'),
    number: z.string().min(1).max(100).optional().describe('exact number, or a prefix ending with * (INV-2027-*)'),
    paid: z.enum(['true', 'false']).optional().describe('true: paid in full; false: draft, issued or partially paid'),
    minAmount: amount('minAmount').optional().describe('gross total from (inclusive), minor units'),
    maxAmount: amount('maxAmount').optional().describe('gross total up to (inclusive), minor units'),
    ...pageQuery(20).shape,
  })
  .strict();

const invoices = resource({ tag: 'Invoices', scopePrefix: 'invoice' });

/** Invoices: drafts, issue (final number), void (credit note), snapshot corrections, lists. */
export const invoiceRoutes = [
  invoices({
    method: 'GET',
    path: '/invoices',
    operationId: 'listInvoices',
    response: invoicePageResponse,
    summary:
      'List invoices, newest first (status, clientId, siteId, startDate/endDate of the issue date, number, paid, minAmount/maxAmount of the gross total, page, limit)',
    query: listQuery,
    async handler({ deps, org, query }) {
      const { paid, ...rest } = query;
      return billingJson(deps, org, 'listInvoices', {
        body: { ...rest, ...(paid ? { paid: paid === 'true' } : {}) },
      });
    },
  }),
  invoices({
    method: 'GET',
    path: '/invoices/:id',
    operationId: 'getInvoice',
    response: invoiceResponse,
    summary:
      'Get an invoice: draft with its pro forma label and tax preview, or issued with its frozen snapshot and corrections',
    params: idParams,
    handler: toBilling.byId('getInvoice'),
  }),
  invoices({
    method: 'POST',
    path: '/invoices',
    operationId: 'createInvoice',
    response: invoiceResponse,
    errors: [422, 503],
    summary: 'Create a draft invoice; the tax engine taxes its items for the client (tax point: issueDate or today)',
    body: invoiceCreate,
    handler: toBilling.body('createInvoice'),
  }),
  invoices({
    method: 'POST',
    path: '/invoices/from-transaction/:transactionId',
    operationId: 'createInvoiceFromTransaction',
    response: invoiceResponse,
    errors: [409, 422, 503],
    summary:
      "Create the draft invoice of a transaction: lines and tax from the transaction's stored tax (not recomputed), the transaction linked; clientId from the body, else the transaction's (none: 400); a second invoice for it: 409 TRANSACTION_ALREADY_INVOICED",
    params: z.object({ transactionId: objectId('transactionId') }),
    body: invoiceFromTransaction,
    async handler({ deps, org, params, body }) {
      return billingJson(deps, org, 'createInvoiceFromTransaction', {
        id: params.transactionId,
        body,
      });
    },
  }),
  invoices({
    method: 'PUT',
    path: '/invoices/:id/transaction',
    operationId: 'linkInvoiceTransaction',
    response: invoiceResponse,
    errors: [409],
    summary:
      'Link the transaction that pays the invoice (same organization and mode: else 404; same currency: else 409 INVOICE_CURRENCY_MISMATCH)',
    params: idParams,
    body: invoiceLinkTransaction,
    handler: toBilling.byIdBody('linkInvoiceTransaction'),
  }),
  invoices({
    method: 'PUT',
    path: '/invoices/:id',
    operationId: 'updateInvoice',
    response: invoiceResponse,
    errors: [409, 422, 503],
    summary: 'Replace the editable fields of a draft and recompute its tax (issued invoices: 409 INVOICE_NOT_DRAFT)',
    params: idParams,
    body: invoiceUpdate,
    handler: toBilling.byIdBody('updateInvoice'),
  }),
  invoices({
    method: 'PATCH',
    path: '/invoices/:id/notes',
    operationId: 'updateInvoiceNotes',
    response: invoiceResponse,
    summary: 'Set the notes of an invoice in any status (notes are not part of the legal snapshot)',
    params: idParams,
    body: invoiceNotesUpdate,
    handler: toBilling.byIdBody('updateInvoiceNotes'),
  }),
  invoices({
    method: 'DELETE',
    path: '/invoices/:id',
    operationId: 'deleteInvoice',
    response: invoiceDeletedResponse,
    errors: [409],
    summary: 'Delete a draft invoice (issued invoices: 409 INVOICE_NOT_DRAFT; void them instead)',
    params: idParams,
    handler: toBilling.byId('deleteInvoice'),
  }),
  invoices({
    method: 'POST',
    path: '/invoices/:id/issue',
    operationId: 'issueInvoice',
    action: 'execute',
    response: invoiceResponse,
    status: 200,
    errors: [409, 422, 503],
    summary:
      'Issue a draft: final number (organization time zone, site prefix), frozen snapshot, ledger event; repeating answers the issued invoice',
    params: idParams,
    body: noBody,
    handler: toBilling.byId('issueInvoice'),
  }),
  invoices({
    method: 'POST',
    path: '/invoices/:id/void',
    operationId: 'voidInvoice',
    action: 'execute',
    role: 'Admin',
    response: invoiceResponse,
    status: 200,
    errors: [409],
    summary:
      'Void an issued invoice (Admin): writes its credit note with its own number; repeating answers the void invoice',
    params: idParams,
    body: invoiceVoid,
    handler: toBilling.byIdBodyActing('voidInvoice'),
  }),
  invoices({
    method: 'POST',
    path: '/invoices/:id/correct',
    operationId: 'correctInvoice',
    action: 'update',
    response: invoiceResponse,
    status: 200,
    errors: [409],
    summary:
      "Correct the buyer on an issued invoice's snapshot (never the client record); every correction is kept in corrections[]",
    params: idParams,
    body: invoiceCorrection,
    handler: toBilling.byIdBodyActing('correctInvoice'),
  }),
];
