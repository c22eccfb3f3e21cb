import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { text } from '@paymesh/http';
import type { checkoutPayments } from '@paymesh/proto';
import { rpc } from '../../clients';
import { browserOriginFor } from '../origin';
import {
  billingAddressIn,
  billingAddressSchema,
  shippingAddressIn,
  shippingAddressSchema,
  type PublicRouteOptions,
} from './checkouts';
import { parse, required } from './parse';
import { doc, transactionAction, transactionCreated, transactionStatus, inputDocumentedOnly } from '../responses';

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

/** Buyer-facing transaction routes under /api/v1. */
export function registerTransactionRoutes(app: FastifyInstance, opts: PublicRouteOptions): void {
  const { clients } = opts;
  const cp = clients.checkoutPayments;

  // Documented and checked on the way out; the handler's parse() is the one check of its input.
  const createSchema = doc({
    tag: 'Transactions',
    operationId: 'createTransaction',
    summary: 'Start paying a checkout session with a provider',
    body: createBody,
    response: transactionCreated,
    errors: [400, 403, 404, 409, 422, 429, 503],
  });
  app.post('/transactions/create', { schema: createSchema, ...inputDocumentedOnly }, async (req) => {
    const browserOrigin = browserOriginFor(req.headers, opts.mainFrontendOrigin);
    const body = parse(createBody, req.body);
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
  });

  // The direct-debit start: a transaction whose provider payment is a billing request (mandate +
  // payment) at the organization's enabled provider_c record; `redirectUrl` is the mandate page.
  const billingRequestSchema = doc({
    tag: 'Transactions',
    operationId: 'createBillingRequest',
    summary: 'Start a direct-debit mandate billing request for a checkout session (provider_c)',
    body: billingRequestBody,
    response: transactionCreated,
    errors: [400, 403, 404, 409, 422, 429, 503],
  });
  app.post('/billing-requests/create', { schema: billingRequestSchema, ...inputDocumentedOnly }, async (req) => {
    const browserOrigin = browserOriginFor(req.headers, opts.mainFrontendOrigin);
    const body = parse(billingRequestBody, req.body);
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
  });

  const statusSchema = doc({
    tag: 'Transactions',
    operationId: 'getTransactionStatus',
    summary: 'Status of a transaction (for the return page)',
    params: txParams,
    response: transactionStatus,
    errors: [400, 404, 429],
  });
  app.get('/transactions/:id/status', { schema: statusSchema, ...inputDocumentedOnly }, async (req) => {
    const { id } = parse(txParams, req.params, 'params');
    const v = await rpc(
      cp,
      cp.getTransactionStatus,
      { transactionId: id, browserOrigin: '', sessionPublicId: '' },
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
  });

  const cancelSchema = doc({
    tag: 'Transactions',
    operationId: 'cancelTransaction',
    summary: 'Buyer cancels a transaction before the provider captured it (needs the session ID)',
    params: txParams,
    body: actionBody,
    response: transactionAction,
    errors: [400, 403, 404, 409, 422, 429],
  });
  app.post('/transactions/:id/cancel', { schema: cancelSchema, ...inputDocumentedOnly }, async (req) => {
    const browserOrigin = browserOriginFor(req.headers, opts.mainFrontendOrigin);
    const { id } = parse(txParams, req.params, 'params');
    const { sessionPublicId } = parse(actionBody, req.body ?? {});
    return actionView(
      await rpc(
        cp,
        cp.cancelTransaction,
        { transactionId: id, browserOrigin, sessionPublicId },
        clients.paymentDeadlineMs,
      ),
    );
  });

  const pendingSchema = doc({
    tag: 'Transactions',
    operationId: 'markTransactionPending',
    summary: 'The buyer finished at the provider: wait for its confirmation (needs the session ID)',
    params: txParams,
    body: actionBody,
    response: transactionAction,
    errors: [400, 403, 404, 409, 422, 429],
  });
  app.post('/transactions/:id/mark-pending', { schema: pendingSchema, ...inputDocumentedOnly }, async (req) => {
    const browserOrigin = browserOriginFor(req.headers, opts.mainFrontendOrigin);
    const { id } = parse(txParams, req.params, 'params');
    const { sessionPublicId } = parse(actionBody, req.body ?? {});
    return actionView(
      await rpc(
        cp,
        cp.markTransactionPending,
        { transactionId: id, browserOrigin, sessionPublicId },
        clients.deadlineMs,
      ),
    );
  });
}
