import type { NewDoc } from '@paymesh/store';
import type { CreditNoteDoc, InvoiceDoc, StoredSnapshot } from '../domain/invoice';
import { zonedDay } from '../domain/numbering';
import { effectivePrefixes } from '../domain/site-invoicing';
import type { OrgKey } from './deps';
import type { InvoiceDeps } from './invoice-deps';
import { getInvoicingSettings } from './invoicing-settings';
import { sitePrefixes } from './init-site-invoicing';

/**
 * When a credit note of an invoice of `siteId` is issued now (`at`, and `day` in the organization's
 * time zone) and the number layout it draws from: the credit-note layout with the site's prefix.
 */
export async function creditNoteIssue(deps: InvoiceDeps, key: OrgKey, siteId: string) {
  const settings = (await getInvoicingSettings(deps, key)).settings;
  const now = deps.clock.now();
  const at = now.toISOString();
  const day = zonedDay(now, settings.timeZone ?? 'UTC');
  const prefixes = await sitePrefixes(deps, key, siteId);
  const layout = { ...settings.creditNoteNumberLayout, prefix: effectivePrefixes(prefixes, settings).creditNotePrefix };
  return { at, day, layout };
}

/** A credit note of an issued invoice: its site, client, currency, seller and buyer as issued, and `note`. */
export function creditNoteOf(
  key: OrgKey,
  invoice: InvoiceDoc & { number: string },
  snap: StoredSnapshot,
  note: Pick<
    CreditNoteDoc,
    | 'number'
    | 'kind'
    | 'sourceKey'
    | 'reason'
    | 'issueDate'
    | 'lines'
    | 'taxCalculation'
    | 'totals'
    | 'transactionId'
    | 'createdAt'
  > & { id?: string },
): NewDoc<CreditNoteDoc> {
  return {
    organizationId: key.organizationId,
    mode: key.mode,
    invoiceId: invoice.id,
    invoiceNumber: invoice.number,
    siteId: invoice.siteId,
    clientId: invoice.clientId,
    currency: invoice.currency,
    seller: snap.seller,
    buyer: snap.buyer,
    ...note,
  };
}
