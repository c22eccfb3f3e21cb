import { DomainError } from '@paymesh/core';
import { call, makeClient } from '@paymesh/grpc';
import { checkout, checkoutPayments } from '@paymesh/proto';
import { transactionTaxView } from '@paymesh/contracts';
import { createCheckoutMessage, createdCheckoutOf } from './checkout-create';
import type { InvoiceCheckoutPort } from '../app/invoice-deps';
import type { SenderDnsPort } from '../app/sender-verification';

/** An absent `optional` field (or an empty one) is null for the use cases. */
const orNull = (s: string | undefined): string | null => s || null;

/**
 * {@link InvoiceCheckoutPort} over checkout's `GetSite`, `GetTransaction`, `GetTransactionTax` and
 * `CreateCheckout`, and {@link SenderDnsPort} over its `LookupDnsTxt` (the resolvers of the custom-domain checks).
 */
export function grpcCheckoutPort(
  address: string,
  deadlineMs: number,
): InvoiceCheckoutPort & SenderDnsPort & { close(): void } {
  const client = makeClient(checkout.CheckoutServiceClient, address);
  const payments = makeClient(checkoutPayments.CheckoutPaymentsServiceClient, address);
  const opts = { deadlineMs, target: 'checkout' };
  return {
    async lookupTxt(hostname) {
      const res = await call(client, client.lookupDnsTxt, { hostname }, opts);
      return { values: res.values, reason: res.reason };
    },
    async createCheckout(req) {
      return createdCheckoutOf(
        await call(payments, payments.createCheckout, createCheckoutMessage(req), { deadlineMs, target: 'checkout' }),
      );
    },
    async siteExists(key, siteId) {
      try {
        await call(
          client,
          client.getSite,
          { organizationId: key.organizationId, id: siteId, testMode: key.mode === 'test' },
          opts,
        );
        return true;
      } catch (err) {
        if (err instanceof DomainError && err.kind === 'not_found') return false;
        throw err;
      }
    },
    async siteBranding(key, siteId) {
      try {
        const site = await call(
          client,
          client.getSite,
          { organizationId: key.organizationId, id: siteId, testMode: key.mode === 'test' },
          opts,
        );
        return { name: site.name, primaryColor: site.branding?.primaryColor || null };
      } catch (err) {
        if (err instanceof DomainError && err.kind === 'not_found') return null;
        throw err;
      }
    },
    async transaction(key, id) {
      try {
        const t = await call(
          payments,
          payments.getTransaction,
          { organizationId: key.organizationId, testMode: key.mode === 'test', id },
          opts,
        );
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
      } catch (err) {
        if (err instanceof DomainError && err.kind === 'not_found') return null;
        throw err;
      }
    },
    async transactionTax(key, id) {
      const res = await call(
        payments,
        payments.getTransactionTax,
        { organizationId: key.organizationId, testMode: key.mode === 'test', id },
        opts,
      );
      return transactionTaxView.parse(JSON.parse(res.json));
    },
    close() {
      client.close();
      payments.close();
    },
  };
}
