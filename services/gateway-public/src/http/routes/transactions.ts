import { z } from 'zod';
import { text } from '@paymesh/http';
import type { checkoutPayments } from '@paymesh/proto';
import { checkoutCall, rpc, type Clients } from '../../clients';
import { anyone, buyerOrigin, type PublicRouteOptions } from '../guards';
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

/** A buyer's action on a transaction: it names the transaction in the path and proves the checkout session in the body. */
function buyerAction(o: {
  path: string;
  operationId: string;
  summary: string;
  call(
    cp: Clients['checkoutPayments'],
    ref: checkoutPayments.TransactionRef,
    clients: Clients,
  ): Promise<checkoutPayments.TransactionActionResponse>;
}): PublicRow {
  return publicRow({
    tag: 'Transactions',
    guard: buyerOrigin,
    method: 'POST',
    path: o.path,
    operationId: o.operationId,
    summary: o.summary,
    params: txParams,
    body: actionBody,
    response: transactionAction,
    errors: [400, 403, 404, 409, 422, 429],
    async handler({ deps: { clients }, params, body, browserOrigin }) {
      const ref = { transactionId: params.id, browserOrigin, sessionPublicId: body.sessionPublicId };
      const r = await o.call(clients.checkoutPayments, ref, clients);
      return { transactionId: r.transactionId, status: r.status, ...(r.subState ? { subState: r.subState } : {}) };
    },
  });
}

/** Starts paying a checkout session with a provider (checkout's createTransaction). */
async function startPayment(
  { clients }: PublicRouteOptions,
  body: z.infer<typeof billingRequestBody>,
  providerId: string,
  browserOrigin: string,
) {
  const res = await checkoutCall(
    clients,
    (cp) => cp.createTransaction,
    {
      sessionPublicId: body.sessionPublicId,
      providerId,
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
}

const transactions = { tag: 'Transactions', guard: buyerOrigin } as const;
const PAYMENT_ERRORS = [400, 403, 404, 409, 422, 429, 503];

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
    handler: ({ deps, body, browserOrigin }) => startPayment(deps, body, body.providerId, browserOrigin),
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
    async handler({ deps, body, browserOrigin }) {
      // A billing request is paid on the provider's mandate page, never in ours: no client secret.
      const { clientSecret: _inPage, ...started } = await startPayment(deps, body, 'provider_c', browserOrigin);
      return started;
    },
  }),
  // The return page asks by the transaction ID alone: no Origin check (CORS decides for browsers).
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
      const v = await checkoutCall(clients, (cp) => cp.getTransactionStatus, {
        transactionId: params.id,
        browserOrigin: '',
        sessionPublicId: '',
      });
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
  buyerAction({
    path: '/transactions/:id/cancel',
    operationId: 'cancelTransaction',
    summary: 'Buyer cancels a transaction before the provider captured it (needs the session ID)',
    // Canceling may call the provider.
    call: (cp, ref, clients) => rpc(cp, cp.cancelTransaction, ref, clients.paymentDeadlineMs),
  }),
  buyerAction({
    path: '/transactions/:id/mark-pending',
    operationId: 'markTransactionPending',
    summary: 'The buyer finished at the provider: wait for its confirmation (needs the session ID)',
    call: (cp, ref, clients) => rpc(cp, cp.markTransactionPending, ref, clients.deadlineMs),
  }),
];
