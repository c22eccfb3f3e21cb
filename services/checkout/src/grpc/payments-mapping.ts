import type { checkoutPayments } from '@paymesh/proto';
import type { BillingAddress, BillingAddressInput } from '../domain/billing-address';
import { checkoutStatus, type CheckoutDoc, type LineItemInput } from '../domain/checkout';
import type { ShippingAddress, ShippingAddressInput } from '../domain/shipping-address';
import type { TransactionDoc } from '../domain/transaction';
import type { CustomerHoldDoc } from '../domain/customer-hold';
import type { CustomerHoldView } from '@paymesh/contracts';

/** The fields a billing address has alike on the wire and in the domain. */
function postalFields(a: Pick<BillingAddress, 'name' | 'email' | 'line1' | 'city' | 'postalCode' | 'country'>) {
  return { name: a.name, email: a.email, line1: a.line1, city: a.city, postalCode: a.postalCode, country: a.country };
}

/** Wire -> domain: absent and empty fields alike are not given (validation decides). */
export function billingAddressIn(a: checkoutPayments.BillingAddress | undefined): BillingAddressInput | undefined {
  return a ? { ...postalFields(a), vatId: a.vatId } : undefined;
}

export function billingAddressOut(a: BillingAddress | null): checkoutPayments.BillingAddress | undefined {
  return a ? { ...postalFields(a), vatId: a.vatId ?? undefined } : undefined;
}

/** Wire -> domain: absent stays absent; empty strings are absent fields (validation decides). */
export function shippingAddressIn(a: checkoutPayments.ShippingAddress | undefined): ShippingAddressInput | undefined {
  if (!a) return undefined;
  return { country: a.country, name: a.name, line1: a.line1, city: a.city, postalCode: a.postalCode };
}

export function shippingAddressOut(
  a: ShippingAddress | null | undefined,
): checkoutPayments.ShippingAddress | undefined {
  return a
    ? {
        country: a.country,
        name: a.name ?? undefined,
        line1: a.line1 ?? undefined,
        city: a.city ?? undefined,
        postalCode: a.postalCode ?? undefined,
      }
    : undefined;
}

export function lineItemsIn(items: checkoutPayments.CheckoutLineItem[]): LineItemInput[] {
  return items.map((i) => ({
    name: i.name,
    description: i.description || undefined,
    quantity: i.quantity,
    unitPrice: i.unitPrice,
    vatRate: i.vatRate,
    itemType: i.itemType || undefined,
  }));
}

type MerchantFields =
  'email' | 'returnUrl' | 'cancelUrl' | 'ipnUrl' | 'externalReference' | 'invoiceNumber' | 'clientId';

/** The merchant's optional fields a checkout passes on to its transactions: absent when not given. */
function merchantFieldsOut(doc: Pick<CheckoutDoc, MerchantFields> | Pick<TransactionDoc, MerchantFields>) {
  return {
    email: doc.email ?? undefined,
    returnUrl: doc.returnUrl ?? undefined,
    cancelUrl: doc.cancelUrl ?? undefined,
    ipnUrl: doc.ipnUrl ?? undefined,
    externalReference: doc.externalReference ?? undefined,
    invoiceNumber: doc.invoiceNumber ?? undefined,
    clientId: doc.clientId ?? undefined,
  };
}

export function toCheckoutRecord(
  doc: CheckoutDoc,
  now: Date,
  transactions: TransactionDoc[] = [],
): checkoutPayments.CheckoutRecord {
  return {
    id: doc.id,
    organizationId: doc.organizationId,
    siteId: doc.siteId,
    testMode: doc.mode === 'test',
    sessionPublicId: doc.sessionPublicId,
    shortCode: doc.shortCode,
    paymentUrl: doc.paymentUrl,
    status: checkoutStatus(doc, now),
    amount: doc.amount,
    currency: doc.currency,
    ...merchantFieldsOut(doc),
    items: doc.items.map((i) => ({
      name: i.name,
      description: i.description ?? undefined,
      quantity: i.quantity,
      unitPrice: i.unitPrice,
      vatRate: i.vatRate ?? undefined,
      itemType: i.itemType ?? undefined,
    })),
    metadata: { ...doc.metadata },
    expiresAt: doc.expiresAt,
    completedTransactionId: doc.completedTransactionId ?? undefined,
    createdAt: doc.createdAt,
    updatedAt: doc.updatedAt,
    transactions: transactions.map((t) => ({ id: t.id, status: t.status, createdAt: t.createdAt })),
    shippingAddress: shippingAddressOut(doc.shippingAddress),
  };
}

export function toTransactionRecord(doc: TransactionDoc): checkoutPayments.TransactionRecord {
  return {
    id: doc.id,
    organizationId: doc.organizationId,
    siteId: doc.siteId,
    testMode: doc.mode === 'test',
    checkoutId: doc.checkoutId ?? undefined,
    sessionPublicId: doc.sessionPublicId ?? undefined,
    status: doc.status,
    subState: doc.subState ?? undefined,
    amount: doc.amount,
    currency: doc.currency,
    ...merchantFieldsOut(doc),
    providerId: doc.providerId ?? undefined,
    providerType: doc.providerType ?? undefined,
    providerPaymentId: doc.providerPaymentId ?? undefined,
    providerPaymentState: doc.providerPayment.state,
    providerPaymentError: doc.providerPayment.error ?? undefined,
    billingAddress: billingAddressOut(doc.billingAddress),
    shippingAddress: shippingAddressOut(doc.shippingAddress),
    metadata: { ...doc.metadata },
    notes: doc.notes ?? undefined,
    manual: doc.manual,
    manualReason: doc.manualReason ?? undefined,
    statusHistory: doc.statusHistory.map((h) => ({
      from: h.from ?? undefined,
      to: h.to,
      subState: h.subState ?? undefined,
      trigger: h.trigger,
      at: h.at,
      providerEventId: h.providerEventId ?? undefined,
      requestId: h.requestId ?? undefined,
      reason: h.reason ?? undefined,
    })),
    createdAt: doc.createdAt,
    updatedAt: doc.updatedAt,
    refunds: (doc.refunds ?? []).map((r) => ({
      id: r.id,
      amount: r.amount,
      currency: r.currency,
      at: r.at,
      providerEventId: r.providerEventId,
    })),
    chargebacks: (doc.chargebacks ?? []).map((c) => ({
      id: c.id,
      status: c.status,
      amount: c.amount,
      currency: c.currency,
      reason: c.reason ?? undefined,
      at: c.at,
      updatedAt: c.updatedAt,
      resolvedAt: c.resolvedAt ?? undefined,
      decidedBy: c.decidedBy ?? undefined,
      decisionReason: c.decisionReason ?? undefined,
    })),
  };
}

/** Admin view of a customer risk hold (contracts `customerHoldView`). */
export function toCustomerHoldView(doc: CustomerHoldDoc): CustomerHoldView {
  return {
    id: doc.id,
    organizationId: doc.organizationId,
    testMode: doc.mode === 'test',
    status: doc.status,
    action: doc.action,
    safeProviderTypes: doc.safeProviderTypes,
    buyer: doc.buyer,
    source: doc.source,
    createdAt: doc.createdAt,
    updatedAt: doc.updatedAt,
    liftedAt: doc.liftedAt,
    liftedBy: doc.liftedBy,
    liftReason: doc.liftReason,
  };
}

export function toActionResponse(doc: TransactionDoc): checkoutPayments.TransactionActionResponse {
  return { transactionId: doc.id, status: doc.status, subState: doc.subState ?? undefined };
}
