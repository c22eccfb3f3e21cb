import type { SealedValue } from '@paymesh/core';
import type { DocumentLanguage, EmailEInvoiceFormat, PostalAddress } from '@paymesh/contracts';

export type ClientEInvoiceFormat = EmailEInvoiceFormat | 'none';
import type { StoredDoc } from '@paymesh/store';

/** Peppol routing address as stored: the value sealed, the buyer's confirmation kept. */
export interface StoredPeppolAddress {
  schemeId: string;
  value: SealedValue;
  confirmedByBuyer: boolean;
}

/** Compliance data of a client as stored: secret values sealed, the tax ID also as a keyed digest. */
export interface StoredTaxInfo {
  taxId: SealedValue | null;
  /** Keyed digest (HMAC) of the normalized tax ID, for exact-match search without plaintext. */
  taxIdDigest: string | null;
  taxIdType: string | null;
  taxCountry: string | null;
  peppolRoutingAddress: StoredPeppolAddress | null;
}

/** A billing client of one organization and mode. */
export interface ClientDoc extends StoredDoc {
  organizationId: string;
  mode: 'live' | 'test';
  name: string;
  email: string | null;
  /** The e-mail as buyers are matched by it (trimmed, lower case); absent on older documents. */
  emailKey?: string | null;
  phone: string | null;
  address: PostalAddress | null;
  taxInfo: StoredTaxInfo | null;
  notes: string | null;
  metadata: Record<string, string> | null;
  /** Document language; absent on clients saved before languages existed (the organization's default). */
  language?: DocumentLanguage | null;
  /** E-invoice attached to document e-mails; absent: the organization's rule. */
  eInvoiceFormat?: ClientEInvoiceFormat | null;
  createdAt: string;
  updatedAt: string;
}

/** Sealed-field binding: a sealed value only opens for its tenant, mode, client and field. */
export function clientAad(key: { organizationId: string; mode: string }, clientId: string, field: string): string {
  return `client:${key.organizationId}:${key.mode}:${clientId}:${field}`;
}

/** Tax ID in the form its digest is taken of: letters upper-cased, spaces, dots and dashes dropped. */
export function normalizeTaxId(taxId: string): string {
  return taxId.toUpperCase().replace(/[\s.\-/]/g, '');
}

/** An e-mail address in the form buyers are matched by ("same buyer"): trimmed and lower-cased. */
export function emailKeyOf(email: string): string {
  return email.trim().toLowerCase();
}
