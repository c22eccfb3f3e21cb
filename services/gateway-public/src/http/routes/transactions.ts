import { z } from 'zod';
import { text } from '@paymesh/http';
import type { checkoutPayments } from '@paymesh/proto';
import { rpc } from '../../clients';
import { anyone, buyerOrigin } from '../guards';
import {
  billingAddressIn,
  billingAddressSchema,
  publicRow,
  shippingAddressIn,
  shippingAddressSchema,
  type PublicRow,
} from './checkouts';
import { required } from './parse';
import { transactionAction, transactionCreated, transactionStatus } from '../responses';

const createBody = z.object({
  sessionPublicId: required('sessionPublicId', 100),
  providerId: required('providerId', 100),
  billingAddress: billingAddressSchema,
  shippingAddress: shippingAddressSchema.optional(),
});
/** Direct debit checkout: the session and the billing address; the provider is the organization's provider_c record. */
const billingRequestBody = z.object({
  sessionPublicId: required('sessionPublicId', 100),
  billingAddress: billingAddressSchema,
  shippingAddress: shippingAddressSchema.optional(),
});
const txParams = z.object({ id: text(100, 1) });
/** Buyer actions prove possession of the checkout session: transaction IDs alone are guessable. */
const actionBody = z.object({ sessionPublicId: required('sessionPublicId', 100) });

function actionView(r: checkoutPayments.TransactionActionResponse) {
  return { transactionId: r.transactionId, status: r.status, ...(r.subState ? { subState: r.subState } : {}) };
}

const transactions = { tag: 'Transactions', guard: buyerOrigin } as const;
const PAYMENT_ERRORS = [400, 403, 404, 409, 422, 429, 503];
const ACTION_ERRORS = [400, 403, 404, 409, 422, 429];

/** Buyer-facing transaction routes under /api/v1. */
export const transactionRows: PublicRow[] = [
  publicRow({
    ...transactions,
    method: 'POST',
    path: '/transactions/create',
    operationId: 'createTransaction',
    summary: 'Start paying a checkout session with a provider',
    body: createBody,
    response: transactionCreated,
    errors: PAYMENT_ERRORS,
    async handler({ deps: { clients }, body, browserOrigin }) {
      const cp = clients.checkoutPayments;
      const res = await rpc(
        cp,
        cp.createTransaction,
        {
          sessionPublicId: body.sessionPublicId,
          providerId: body.providerId,
          billingAddress: billingAddressIn(body.billingAddress),
          shippingAddress: shippingAddressIn(body.shippingAddress),
          browserOrigin,
        },
        clients.paymentDeadlineMs,
      );
      return {
        transactionId: res.transactionId,
        status: res.status,
        ...(res.providerType ? { providerType: res.providerType } : {}),
        ...(res.redirectUrl ? { redirectUrl: res.redirectUrl } : {}),
        ...(res.clientSecret ? { clientSecret: res.clientSecret } : {}),
      };
    },
  }),
  // The direct-debit start: a transaction whose provider payment is a billing request (mandate +
  // payment) at the organization's enabled provider_c record; `redirectUrl` is the mandate page.
  publicRow({
    ...transactions,
    method: 'POST',
    path: '/billing-requests/create',
    operationId: 'createBillingRequest',
    summary: 'Start a direct-debit mandate billing request for a checkout session (provider_c)',
    body: billingRequestBody,
    response: transactionCreated,
    errors: PAYMENT_ERRORS,
    async handler({ deps: { clients }, body, browserOrigin }) {
      const cp = clients.checkoutPayments;
      const res = await rpc(
        cp,
        cp.createTransaction,
        {
          sessionPublicId: body.sessionPublicId,
          providerId: 'provider_c',
          billingAddress: billingAddressIn(body.billingAddress),
          shippingAddress: shippingAddressIn(body.shippingAddress),
          browserOrigin,
        },
        clients.paymentDeadlineMs,
      );
      return {
        transactionId: res.transactionId,
        status: res.status,
        ...(res.providerType ? { providerType: res.providerType } : {}),
        ...(res.redirectUrl ? { redirectUrl: res.redirectUrl } : {}),
      };
    },
  }),
  // The return page asks without the checkout session: no Origin check here (checkout's CORS check covers browsers).
  publicRow({
    tag: 'Transactions',
    guard: anyone,
    method: 'GET',
    path: '/transactions/:id/status',
    operationId: 'getTransactionStatus',
    summary: 'Status of a transaction (for the return page)',
    params: txParams,
    response: transactionStatus,
    errors: [400, 404, 429],
    async handler({ deps: { clients }, params }) {
      const cp = clients.checkoutPayments;
      const v = await rpc(
        cp,
        cp.getTransactionStatus,
        { transactionId: params.id, browserOrigin: '', sessionPublicId: '' },
        clients.deadlineMs,
      );
      return {
        status: v.status,
        ...(v.externalReference ? { externalReference: v.externalReference } : {}),
        amount: v.amount,
        currency: v.currency,
        ...(v.returnUrl ? { returnUrl: v.returnUrl } : {}),
        ...(v.cancelUrl ? { cancelUrl: v.cancelUrl } : {}),
        createdAt: v.createdAt,
      };
    },
  }),
  publicRow({
    ...transactions,
    method: 'POST',
    path: '/transactions/:id/cancel',
    operationId: 'cancelTransaction',
    summary: 'Buyer cancels a transaction before the provider captured it (needs the session ID)',
    params: txParams,
    body: actionBody,
    response: transactionAction,
    errors: ACTION_ERRORS,
    async handler({ deps: { clients }, params, body, browserOrigin }) {
      const cp = clients.checkoutPayments;
      return actionView(
        await rpc(
          cp,
          cp.cancelTransaction,
          { transactionId: params.id, browserOrigin, sessionPublicId: body.sessionPublicId },
          clients.paymentDeadlineMs,
        ),
      );
    },
  }),
  publicRow({
    ...transactions,
    method: 'POST',
    path: '/transactions/:id/mark-pending',
    operationId: 'markTransactionPending',
    summary: 'The buyer finished at the provider: wait for its confirmation (needs the session ID)',
    params: txParams,
    body: actionBody,
    response: transactionAction,
    errors: ACTION_ERRORS,
    async handler({ deps: { clients }, params, body, browserOrigin }) {
      const cp = clients.checkoutPayments;
      return actionView(
        await rpc(
          cp,
          cp.markTransactionPending,
          { transactionId: params.id, browserOrigin, sessionPublicId: body.sessionPublicId },
          clients.deadlineMs,
        ),
      );
    },
  }),
];
