import type { checkoutPayments } from '@paymesh/proto';
import { modeOf, pageOf, requireObjectId, tenantOf, ValidationError } from '@paymesh/core';
import type { CheckoutStatus } from '../../domain/checkout';
import type { PaymentsDeps } from '../../app/payments-deps';
import { createCheckout } from '../../app/create-checkout';
import { getCheckout, listCheckouts, transactionsOfCheckout } from '../../app/get-checkout';
import { updateCheckout } from '../../app/update-checkout';
import { shippingAddressIn, lineItemsIn, toCheckoutRecord } from '../payments-mapping';
import { type PaymentsRpcKit, opt } from './kit';

const CHECKOUT_STATUSES: readonly CheckoutStatus[] = ['pending', 'completed', 'expired'];

/** Checkouts of the Admin API: create, read, list and update. */
export function checkoutHandlers(
  deps: PaymentsDeps,
  { rpc }: PaymentsRpcKit,
): Pick<
  checkoutPayments.CheckoutPaymentsServiceServer,
  'createCheckout' | 'getCheckout' | 'listCheckouts' | 'updateCheckout'
> {
  return {
    createCheckout: rpc('CreateCheckout', async (req: checkoutPayments.CreateCheckoutRequest) => {
      const doc = await createCheckout(deps, {
        ...tenantOf(req),
        siteId: req.siteId,
        amount: req.amount,
        currency: req.currency,
        email: opt(req.email),
        returnUrl: opt(req.returnUrl),
        cancelUrl: opt(req.cancelUrl),
        ipnUrl: opt(req.ipnUrl),
        externalReference: opt(req.externalReference),
        invoiceNumber: opt(req.invoiceNumber),
        clientId: opt(req.clientId),
        items: lineItemsIn(req.items),
        shippingAddress: shippingAddressIn(req.shippingAddress),
        metadata: req.metadata,
        expiresAt: opt(req.expiresAt),
        invoiceTaxJson: opt(req.invoiceTaxJson),
      });
      return toCheckoutRecord(doc, deps.clock.now());
    }),
    getCheckout: rpc('GetCheckout', async (req: checkoutPayments.CheckoutRef) => {
      const doc = await getCheckout(
        deps,
        requireObjectId(req.organizationId, 'organizationId'),
        modeOf(req.testMode),
        req.id,
      );
      return toCheckoutRecord(doc, deps.clock.now(), await transactionsOfCheckout(deps, doc));
    }),
    listCheckouts: rpc('ListCheckouts', async (req: checkoutPayments.ListCheckoutsRequest) => {
      if (req.status && !CHECKOUT_STATUSES.some((s) => s === req.status)) {
        throw new ValidationError('status must be pending, completed or expired', { field: 'status' });
      }
      const res = await listCheckouts(deps, {
        ...tenantOf(req),
        status: CHECKOUT_STATUSES.find((s) => s === req.status),
        siteId: opt(req.siteId),
        externalReference: opt(req.externalReference),
        invoiceNumber: opt(req.invoiceNumber),
        createdFrom: opt(req.createdFrom),
        createdTo: opt(req.createdTo),
        ...pageOf(req, 'transactions'),
      });
      const now = deps.clock.now();
      return {
        items: res.items.map((d) => toCheckoutRecord(d, now)),
        total: res.total,
        page: res.page,
        limit: res.limit,
      };
    }),
    updateCheckout: rpc('UpdateCheckout', async (req: checkoutPayments.UpdateCheckoutRequest) => {
      const doc = await updateCheckout(
        deps,
        { ...tenantOf(req), id: req.id },
        {
          expiresAt: req.expiresAt,
          returnUrl: req.returnUrl,
          cancelUrl: req.cancelUrl,
          ipnUrl: req.ipnUrl,
          metadata: req.metadata?.entries,
        },
      );
      return toCheckoutRecord(doc, deps.clock.now());
    }),
  };
}
