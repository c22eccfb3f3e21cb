import { DomainError, toWire } from '@paymesh/core';
import { checkout, checkoutPayments } from '@paymesh/proto';
import { transactionTaxView } from '@paymesh/contracts';
import { createCheckoutMessage, createdCheckoutOf } from './checkout-create';
import type { InvoiceCheckoutPort } from '../app/invoice-deps';
import type { SenderDnsPort } from '../app/sender-verification';
import type { OrgKey } from '../app/deps';
import { remote } from './remote';

/** An absent `optional` field (or an empty one) is null for the use cases. */
const orNull = (s: string | undefined): string | null => s || null;

/** The answer of a call, or null when the callee answers not found. */
async function unlessNotFound<T>(answer: Promise<T>): Promise<T | null> {
  try {
    return await answer;
  } catch (err) {
    if (err instanceof DomainError && err.kind === 'not_found') return null;
    throw err;
  }
}

/**
 * {@link InvoiceCheckoutPort} over checkout's `GetSite`, `GetTransaction`, `GetTransactionTax` and
 * `CreateCheckout`, and {@link SenderDnsPort} over its `LookupDnsTxt` (the resolvers of the custom-domain checks).
 */
export function grpcCheckoutPort(
  address: string,
  deadlineMs: number,
): InvoiceCheckoutPort & SenderDnsPort & { close(): void } {
  const site = remote(checkout.CheckoutServiceClient, address, deadlineMs, 'checkout');
  const payments = remote(checkoutPayments.CheckoutPaymentsServiceClient, address, deadlineMs, 'checkout');
  const getSite = (key: OrgKey, siteId: string) =>
    unlessNotFound(site.call(site.client.getSite, { ...toWire(key), id: siteId }));
  return {
    async lookupTxt(hostname) {
      const res = await site.call(site.client.lookupDnsTxt, { hostname });
      return { values: res.values, reason: res.reason };
    },
    async createCheckout(req) {
      return createdCheckoutOf(await payments.call(payments.client.createCheckout, createCheckoutMessage(req)));
    },
    async siteExists(key, siteId) {
      return (await getSite(key, siteId)) !== null;
    },
    async siteBranding(key, siteId) {
      const found = await getSite(key, siteId);
      return found ? { name: found.name, primaryColor: found.branding?.primaryColor || null } : null;
    },
    async transaction(key, id) {
      const t = await unlessNotFound(payments.call(payments.client.getTransaction, { ...toWire(key), id }));
      if (!t) return null;
      const b = t.billingAddress;
      return {
        id: t.id,
        siteId: t.siteId,
        status: t.status,
        amount: Number(t.amount),
        currency: t.currency,
        clientId: orNull(t.clientId),
        externalReference: orNull(t.externalReference),
        billingAddress:
          b && (b.name || b.email || b.country)
            ? {
                name: b.name,
                email: b.email,
                line1: b.line1,
                city: b.city,
                postalCode: b.postalCode,
                country: b.country,
                vatId: b.vatId ?? '',
              }
            : null,
      };
    },
    async transactionTax(key, id) {
      const res = await payments.call(payments.client.getTransactionTax, { ...toWire(key), id });
      return transactionTaxView.parse(JSON.parse(res.json));
    },
    close() {
      site.close();
      payments.close();
    },
  };
}
