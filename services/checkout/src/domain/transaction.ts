import type { StoredDoc } from '@paymesh/store';
import type { Mode } from './site';
import type { BillingAddress } from './billing-address';
import type { SubState, TxStatus } from './transaction-state';

/** One entry of a transaction's status history (admin record). */
export interface StatusHistoryEntry {
  /** Null for the first status. */
  from: TxStatus | null;
  to: TxStatus;
  subState: SubState;
  trigger: string;
  at: string;
  providerEventId: string | null;
  requestId: string | null;
  reason: string | null;
}

/**
 * Where the provider payment of a transaction stands:
 * none (manual transaction), requested (CreatePayment under way), created, indeterminate (the call
 * failed in a way that may or may not have created it: the webhook or a retry settles it),
 * failed (the provider refused; nothing was created).
 */
export type ProviderPaymentState = 'none' | 'requested' | 'created' | 'indeterminate' | 'failed';

export interface ProviderPayment {
  state: ProviderPaymentState;
  error: string | null;
  redirectUrl: string | null;
}

export interface TransactionDoc extends StoredDoc {
  organizationId: string;
  siteId: string;
  mode: Mode;
  checkoutId: string | null;
  sessionPublicId: string | null;
  status: TxStatus;
  subState: SubState;
  /** Number of integer status values this transaction has had (the event `sequence`). */
  statusSequence: number;
  statusHistory: StatusHistoryEntry[];
  /** Provider event ids already handled (applied or found to be a repeat). */
  processedProviderEventIds: string[];
  amount: number;
  currency: string;
  email: string | null;
  externalReference: string | null;
  invoiceNumber: string | null;
  clientId: string | null;
  returnUrl: string | null;
  cancelUrl: string | null;
  ipnUrl: string | null;
  providerId: string | null;
  providerType: string | null;
  providerPaymentId: string | null;
  providerPayment: ProviderPayment;
  billingAddress: BillingAddress | null;
  metadata: Record<string, string>;
  notes: string | null;
  manual: boolean;
  manualReason: string | null;
  /**
   * The checkout ID while this transaction is pending (status 0), else null. A unique index on it
   * keeps at most one open transaction per checkout.
   */
  openCheckoutId: string | null;
  deletedAt: string | null;
  createdAt: string;
  updatedAt: string;
}

/** A provider payment backs the transaction: its status follows the provider only. */
export function isProviderBacked(doc: Pick<TransactionDoc, 'providerId'>): boolean {
  return doc.providerId !== null;
}

/**
 * Soft delete is allowed for transactions that never moved money and never reached a provider:
 * initiated, canceled or failed, without a provider payment that exists or may exist.
 */
export function isDeletable(doc: Pick<TransactionDoc, 'status' | 'providerPaymentId' | 'providerPayment'>): boolean {
  const quietStatus = doc.status === -1 || doc.status === -2 || doc.status === 2;
  const noProviderPayment =
    doc.providerPaymentId === null && (doc.providerPayment.state === 'none' || doc.providerPayment.state === 'failed');
  return quietStatus && noProviderPayment;
}

/** Replaces every literal `{transactionId}` placeholder. */
export function fillTransactionId(url: string, transactionId: string): string {
  return url.split('{transactionId}').join(transactionId);
}
