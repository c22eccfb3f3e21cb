import { z } from 'zod';
import { objectId } from '@paymesh/http';
import { creditNotePageResponse, creditNoteResponse } from '../responses/invoices';
import { resource } from '../route-table';
import { idParams, pageQuery, queryDay } from './common';
import { toBilling } from './billing-rpc';

const listQuery = z
  .object({
    invoiceId: objectId('invoiceId').optional(),
    startDate: queryDay.optional().describe('issue date from (inclusive)'),
    endDate: queryDay.optional().describe('issue date to (inclusive)'),
    ...pageQuery(20).shape,
  })
  .strict();

const creditNotes = resource({ tag: 'Credit notes', scopePrefix: 'credit_note' });

export const creditNoteRoutes = [
  creditNotes({
    method: 'GET',
    path: '/credit-notes',
    operationId: 'listCreditNotes',
    response: creditNotePageResponse,
    summary: 'List credit notes, newest first (invoiceId, startDate/endDate of the issue date, page, limit)',
    query: listQuery,
    handler: toBilling.query('listCreditNotes'),
  }),
  creditNotes({
    method: 'GET',
    path: '/credit-notes/:id',
    operationId: 'getCreditNote',
    response: creditNoteResponse,
    summary: 'Get a credit note',
    params: idParams,
    handler: toBilling.byId('getCreditNote'),
  }),
];
