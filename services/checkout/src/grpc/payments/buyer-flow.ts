import type { checkoutPayments } from '@paymesh/proto';
import type { BuyerTransactionRef } from '../../app/access';
import type { PaymentsDeps } from '../../app/payments-deps';
import { getPublicCheckout } from '../../app/public-checkout';
import { resolveBuyerHost } from '../../app/resolve-buyer-host';
import { createHandoff, type CreateHandoffInput } from '../../app/create-handoff';
import { consumeHandoff } from '../../app/consume-handoff';
import { createTransaction } from '../../app/create-transaction';
import { getTransactionStatus } from '../../app/transaction-status';
import { cancelTransaction } from '../../app/cancel-transaction';
import { markTransactionPending } from '../../app/mark-transaction-pending';
import { previewCheckoutTax } from '../../app/preview-checkout-tax';
import { billingAddressIn, billingAddressOut, shippingAddressIn, toActionResponse } from '../payments-mapping';
import { type PaymentsRpcKit } from './kit';
import type { TransactionDoc } from '../../domain/transaction';

/** The buyer's choice of provider on a session, with the billing address given for it (handoff, transaction). */
function buyerChoiceIn(
  req: Pick<
    checkoutPayments.CreateHandoffRequest,
    'sessionPublicId' | 'providerId' | 'billingAddress' | 'browserOrigin'
  >,
): CreateHandoffInput {
  return {
    sessionPublicId: req.sessionPublicId,
    providerId: req.providerId,
    billingAddress: billingAddressIn(req.billingAddress),
    browserOrigin: req.browserOrigin,
  };
}

/** The buyer's way through a checkout (gateway-public): the page, tax preview, handoff, transaction, status. */
export function buyerFlowHandlers(
  deps: PaymentsDeps,
  { rpc }: PaymentsRpcKit,
): Pick<
  checkoutPayments.CheckoutPaymentsServiceServer,
  | 'previewCheckoutTax'
  | 'resolveBuyerHost'
  | 'getPublicCheckout'
  | 'createHandoff'
  | 'consumeHandoff'
  | 'createTransaction'
  | 'getTransactionStatus'
  | 'cancelTransaction'
  | 'markTransactionPending'
> {
  /** A buyer's action on a transaction of the session (cancel, mark pending): the transaction's new state. */
  const buyerAction = (
    name: string,
    action: (deps: PaymentsDeps, input: BuyerTransactionRef) => Promise<TransactionDoc>,
  ) =>
    rpc(name, async (req: checkoutPayments.TransactionRef) =>
      toActionResponse(
        await action(deps, {
          transactionId: req.transactionId,
          browserOrigin: req.browserOrigin,
          sessionPublicId: req.sessionPublicId,
        }),
      ),
    );
  return {
    previewCheckoutTax: rpc('PreviewCheckoutTax', async (req: checkoutPayments.PreviewCheckoutTaxRequest) => {
      const a = req.billingAddress;
      const calc = await previewCheckoutTax(deps, {
        sessionPublicId: req.sessionPublicId,
        browserOrigin: req.browserOrigin,
        billingAddress: a ? { country: a.country, postcode: a.postcode, vatId: a.vatId } : undefined,
        shippingAddress: shippingAddressIn(req.shippingAddress),
      });
      return { json: JSON.stringify(calc) };
    }),
    resolveBuyerHost: rpc('ResolveBuyerHost', async (req: checkoutPayments.ResolveBuyerHostRequest) => ({
      tenants: (await resolveBuyerHost(deps, req.host)).map((t) => ({
        organizationId: t.organizationId,
        testMode: t.mode === 'test',
        source: t.source,
      })),
    })),
    getPublicCheckout: rpc('GetPublicCheckout', async (req: checkoutPayments.GetPublicCheckoutRequest) => {
      const v = await getPublicCheckout(deps, req.sessionPublicId, req.browserOrigin);
      return {
        id: v.id,
        currency: v.currency,
        amount: v.amount,
        status: v.status,
        lineItems: v.lineItems,
        providers: v.providers,
        brandingLogo: v.branding.logo ?? undefined,
        brandingPrimaryColor: v.branding.primaryColor ?? undefined,
        expiresAt: v.expiresAt,
        vatIdValidation: v.vatIdValidation,
      };
    }),
    createHandoff: rpc('CreateHandoff', async (req: checkoutPayments.CreateHandoffRequest) => {
      const res = await createHandoff(deps, buyerChoiceIn(req));
      return { handoffToken: res.token, expiresInSeconds: res.expiresInSeconds };
    }),
    consumeHandoff: rpc('ConsumeHandoff', async (req: checkoutPayments.ConsumeHandoffRequest) => {
      const res = await consumeHandoff(deps, {
        sessionPublicId: req.sessionPublicId,
        token: req.handoffToken,
        browserOrigin: req.browserOrigin,
      });
      return {
        providerId: res.providerId,
        billingAddress: billingAddressOut(res.billingAddress),
        createdAt: res.createdAt,
      };
    }),
    createTransaction: rpc('CreateTransaction', async (req: checkoutPayments.CreateTransactionRequest) => {
      const res = await createTransaction(deps, {
        ...buyerChoiceIn(req),
        shippingAddress: shippingAddressIn(req.shippingAddress),
      });
      return {
        transactionId: res.transaction.id,
        status: res.transaction.status,
        providerType: res.providerType,
        redirectUrl: res.redirectUrl ?? undefined,
        clientSecret: res.clientSecret ?? undefined,
      };
    }),
    getTransactionStatus: rpc('GetTransactionStatus', async (req: checkoutPayments.TransactionRef) => {
      const v = await getTransactionStatus(deps, req.transactionId);
      return {
        ...v,
        externalReference: v.externalReference ?? undefined,
        returnUrl: v.returnUrl ?? undefined,
        cancelUrl: v.cancelUrl ?? undefined,
      };
    }),
    cancelTransaction: buyerAction('CancelTransaction', cancelTransaction),
    markTransactionPending: buyerAction('MarkTransactionPending', markTransactionPending),
  };
}
