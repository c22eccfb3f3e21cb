import type { StoredDoc } from '@paymesh/store';
import { TransactionStatus, type CalculateTaxRequest, type TaxCalculation } from '@paymesh/contracts';
import type { Mode } from './site';
import type { BillingAddress } from './billing-address';
import type { ShippingAddress } from './shipping-address';
import type { SubState, TxStatus } from './transaction-state';
import type { AggregatedContribution } from './dashboard';

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
  /**
   * While pending: when the expiry worker next treats it as abandoned (see app/expire-transactions.ts);
   * absent for transactions created without abandonment (manual ones, older ones).
   */
  expireAt?: string | null;
  /** Expiry attempts made so far (each refused or failed one doubles the pause before the next; see domain/expiry-backoff.ts). */
  expiryAttempts?: number;
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
  /**
   * The shipping address the tax was computed with (the buyer's, else the checkout's); null or
   * absent when there was none (older documents, manual transactions).
   */
  shippingAddress?: ShippingAddress | null;
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
  /**
   * The tax engine's answer for this transaction (at creation or the last recalculation); null or
   * absent when none was computed (no billing address, tax service unavailable, older documents).
   */
  tax?: TaxCalculation | null;
  /** What `tax` was computed from (the engine request), so it can be recalculated and explained. */
  taxInput?: CalculateTaxRequest | null;
  /**
   * Where `tax` came from when the engine did not compute it for this transaction: a checkout of an
   * invoice stores the tax allocated from the invoice's snapshot (no input; never recalculated).
   */
  taxSource?: { kind: 'invoice'; invoiceId: string } | null;
  /** Earlier tax answers replaced by recalculations, oldest first (the last {@link TAX_HISTORY_LIMIT}). */
  taxHistory?: TaxHistoryEntry[];
  /** Refunds the provider reported, one per provider refund id; absent on older documents. */
  refunds?: TransactionRefund[];
  /** Disputes (chargebacks) the provider reported, one per provider dispute id; absent on older documents. */
  chargebacks?: Chargeback[];
  /**
   * What this transaction last added to the dashboard aggregates (see domain/dashboard.ts); absent
   * until the first write that maintains them, or the backfill, gets to it.
   */
  aggregated?: AggregatedContribution;
  /** Start (ISO, UTC) of the quarter hour of `createdAt`: recent transactions are found by it. */
  createdQuarter?: string;
  createdAt: string;
  updatedAt: string;
}

/** A refund of the transaction's payment, as the provider reported it. */
export interface TransactionRefund {
  /** Provider-side refund id. */
  id: string;
  /** Minor units. */
  amount: number;
  currency: string;
  at: string;
  providerEventId: string;
}

export type ChargebackStatus = 'open' | 'under_review' | 'won' | 'lost' | 'accepted';

/** A dispute of the transaction's payment: opened by the buyer's bank, decided later. */
export interface Chargeback {
  /** Provider-side dispute id. */
  id: string;
  status: ChargebackStatus;
  /** Disputed amount, minor units. */
  amount: number;
  currency: string;
  reason: string | null;
  /** When it was first recorded. */
  at: string;
  updatedAt: string;
  /** When it reached won, lost or accepted; null while active. */
  resolvedAt: string | null;
  /**
   * Who set the current status: `provider`, or the operator of a manual resolution (`user:<id>`,
   * `api_key:<id>`, `system_key:<id>`). Absent on records written before manual resolution existed.
   */
  decidedBy?: string;
  /** The operator's reason for the last manual change; null for provider reports. */
  decisionReason?: string | null;
}

/** Final chargeback states: no later report changes them. */
export function isFinalChargeback(status: ChargebackStatus): boolean {
  return status === 'won' || status === 'lost' || status === 'accepted';
}

/**
 * What every event about money going back from a transaction's payment (a refund, a decided
 * chargeback) says about the transaction: which it is, its amount, when it was paid (its last
 * completion; null when never) and the checkout or invoice it settled.
 */
export function moneyBackFields(doc: TransactionDoc) {
  const completed = doc.statusHistory.filter((h) => h.to === 1).at(-1);
  return {
    organizationId: doc.organizationId,
    siteId: doc.siteId,
    transactionId: doc.id,
    mode: doc.mode,
    transactionAmount: doc.amount,
    paidAt: completed?.at ?? null,
    checkoutId: doc.checkoutId,
    invoiceId: doc.taxSource?.kind === 'invoice' ? doc.taxSource.invoiceId : null,
  };
}
/** A tax answer (and its input) that a recalculation replaced. */
export interface TaxHistoryEntry {
  tax: TaxCalculation | null;
  input: CalculateTaxRequest | null;
  replacedAt: string;
  requestId: string | null;
}

export const TAX_HISTORY_LIMIT = 20;

/** Statuses in which the tax may still be recalculated: initiated and pending; the others are final. */
export function taxIsOpen(status: number): boolean {
  return status === TransactionStatus.initiated || status === TransactionStatus.pending;
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
  const quietStatus =
    doc.status === TransactionStatus.initiated ||
    doc.status === TransactionStatus.canceled ||
    doc.status === TransactionStatus.failed;
  const noProviderPayment =
    doc.providerPaymentId === null && (doc.providerPayment.state === 'none' || doc.providerPayment.state === 'failed');
  return quietStatus && noProviderPayment;
}

/** Replaces every literal `{transactionId}` placeholder. */
export function fillTransactionId(url: string, transactionId: string): string {
  return url.split('{transactionId}').join(transactionId);
}

/**
 * Where a payment provider sends the buyer back: the session's hosted checkout page with the
 * transaction ID, which shows the outcome and then follows the merchant's returnUrl or cancelUrl.
 */
export function hostedReturnUrl(paymentUrl: string, transactionId: string): string {
  const url = new URL(paymentUrl);
  url.searchParams.set('transactionId', transactionId);
  return url.toString();
}
