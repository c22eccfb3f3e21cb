import { creditNotePage, creditNoteRecord, invoiceDeleted, invoicePage, invoiceRecord } from '@paymesh/contracts';

/**
 * Invoice and credit note records of the Admin API: the billing contract's schemas, so the
 * documented shape is the one billing answers with (checked on every response).
 */
export const invoiceResponse = invoiceRecord;
export const invoicePageResponse = invoicePage;
export const invoiceDeletedResponse = invoiceDeleted;
export const creditNoteResponse = creditNoteRecord;
export const creditNotePageResponse = creditNotePage;
