import type { TaxRateCreate, TaxRecord } from '@paymesh/contracts';
import type { InvoiceDeps } from './invoice-deps';
import type { OrgKey } from './deps';

/** A tax rate as import needs to recognise it again: code, country and first day. */
export interface TaxRateIdentity {
  code: string;
  country: string;
  validFrom: string;
}

/** One transaction as exports show it (checkout's list). */
export interface ExportTransaction {
  id: string;
  createdAt: string;
  siteId: string;
  status: number;
  amount: number;
  currency: string;
  email: string;
  externalReference: string;
  invoiceNumber: string;
  clientId: string;
  providerType: string;
  manual: boolean;
  refundedAmount: number;
}

export interface TransactionExportFilter {
  createdFrom?: string;
  createdTo?: string;
  statuses?: number[];
  siteIds?: string[];
}

/** The other services data import/export uses: the tax service's rates and checkout's transactions. */
export interface DataIoRemote {
  /** Every tax rate of the organization and mode (identity only). */
  taxRates(key: OrgKey): Promise<TaxRateIdentity[]>;
  /** Creates a rate through the tax service's own create call (its rules apply). */
  createTaxRate(key: OrgKey, rate: TaxRateCreate): Promise<void>;
  /** One page of transactions, newest first. */
  transactions(key: OrgKey, filter: TransactionExportFilter, page: number, limit: number): Promise<ExportTransaction[]>;
  /** The provider type of each of these transactions (any number; asked 100 at a time); unknown ids are absent. */
  transactionProviders(key: OrgKey, ids: readonly string[]): Promise<Map<string, string>>;
  /** One page of the tax-record ledger, tax points in [from, to], newest first. */
  taxRecords(key: OrgKey, from: string, to: string, page: number, limit: number): Promise<TaxRecord[]>;
}

export interface DataIoDeps extends InvoiceDeps {
  dataIo: DataIoRemote;
}
