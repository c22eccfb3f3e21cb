import type { DocumentLanguage, PostalAddress } from '@paymesh/contracts';
import type { ClientEInvoiceFormat } from '../domain/client';
import { openClient } from './client-codec';
import { requireClient } from './client-store';
import type { BillingDeps, OrgKey } from './deps';

/** A client as an invoice needs it: compliance values decrypted, for the invoice snapshot. */
export interface InvoiceBuyer {
  clientId: string;
  name: string;
  email: string | null;
  address: PostalAddress | null;
  /** Plaintext tax ID (e.g. a VAT ID), null when none. */
  taxId: string | null;
  taxIdType: string | null;
  taxCountry: string | null;
  peppolRoutingAddress: { schemeId: string; value: string } | null;
  /** The client's document language (null: the organization's). */
  language?: DocumentLanguage | null;
  /** The client's choice of e-invoice for document e-mails (null: the organization's rule). */
  eInvoiceFormat?: ClientEInvoiceFormat | null;
}

/**
 * The client `clientId` of the organization and mode, for an invoice. Throws NotFoundError when it
 * does not exist there (other organizations' clients included).
 */
export async function loadInvoiceBuyer(deps: BillingDeps, key: OrgKey, clientId: string): Promise<InvoiceBuyer> {
  const doc = await requireClient(deps, key, clientId);
  const plain = openClient(deps, key, doc);
  const tax = plain.taxInfo;
  const peppol = tax?.peppolRoutingAddress ?? null;
  return {
    clientId: doc.id,
    name: plain.name,
    email: plain.email,
    address: plain.address,
    taxId: tax?.taxId ?? null,
    taxIdType: tax?.taxIdType ?? null,
    taxCountry: tax?.taxCountry ?? null,
    peppolRoutingAddress: peppol ? { schemeId: peppol.schemeId, value: peppol.value } : null,
    language: plain.language,
    eInvoiceFormat: plain.eInvoiceFormat,
  };
}
