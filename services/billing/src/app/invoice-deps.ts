import type { Committer } from '@paymesh/bus';
import type { CalculateTaxRequest, EventMap, TaxCalculation, TransactionTaxView } from '@paymesh/contracts';
import type { PaymentLinkCheckoutPort } from './checkout-port';
import type { EmailOutboxPort } from './email-outbox-port';
import type { DocumentsPort } from './documents-port';
import type { BuyerDetails } from '../domain/buyer-client';
import type { BillingDeps, OrgKey } from './deps';

/** The organization's tax settings an invoice needs (seller VAT ID, VIES allowed, price mode). */
export interface SellerTaxSettings {
  homeCountry: string | null;
  vatId: string | null;
  viesEnabled: boolean;
}

/** The tax service as invoices use it. */
export interface InvoiceTaxPort {
  settings(key: OrgKey): Promise<SellerTaxSettings>;
  calculate(request: CalculateTaxRequest): Promise<TaxCalculation>;
}

/** Billing details of a transaction's buyer, as entered at checkout. */
export type TransactionBuyer = BuyerDetails;

/** A checkout transaction as invoices use it (empty strings of the wire become null). */
export interface InvoiceTransaction {
  id: string;
  siteId: string;
  status: number;
  amount: number;
  currency: string;
  clientId: string | null;
  externalReference: string | null;
  /** The buyer's billing details entered at checkout (absent parts are empty strings). */
  billingAddress: TransactionBuyer | null;
}

/** What documents print of a site: its name and primary colour (#rrggbb, null when unset). */
export interface SiteBranding {
  name: string;
  primaryColor: string | null;
}

/** Checkout as invoices use it: sites, transactions with their stored tax, and payment links. */
export interface InvoiceCheckoutPort extends PaymentLinkCheckoutPort {
  siteExists(key: OrgKey, siteId: string): Promise<boolean>;
  /** The site's branding; null when the site is gone (documents then print without it). */
  siteBranding(key: OrgKey, siteId: string): Promise<SiteBranding | null>;
  /** The transaction of the organization and mode; null when there is none. */
  transaction(key: OrgKey, id: string): Promise<InvoiceTransaction | null>;
  /** The tax stored with the transaction (`status: not_computed` when none was). */
  transactionTax(key: OrgKey, id: string): Promise<TransactionTaxView>;
}

/** What the invoice and credit note use cases need beyond the base billing deps. */
export interface InvoiceDeps extends BillingDeps {
  outbox: Committer<EventMap>;
  tax: InvoiceTaxPort;
  checkout: InvoiceCheckoutPort;
  /** notifications-ipn's e-mail outbox (invoice and credit-note e-mail). */
  emailOutbox: EmailOutboxPort;
  /** The documents service (PDFs, e-invoices). */
  documents: DocumentsPort;
}
