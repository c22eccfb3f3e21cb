import { z } from 'zod';
import { UnprocessableError } from '@paymesh/core';
import type { checkoutPayments, notificationsIpn } from '@paymesh/proto';
import { currencyCode, dateBound, EMAIL_MAX, metadata, money, text, transactionStatus, URL_MAX } from '@paymesh/http';
import type { AdminDeps } from '../../app/deps';
import {
  ipnDelivery,
  transactionDeleted as deleted,
  transactionDetail,
  transactionPage,
  transactionWithHistory,
} from '../responses/transactions';
import { resource } from '../route-table';
import { chargebackUpdateBody, transactionTaxView } from '@paymesh/contracts';
import { actorOf } from './billing-rpc';
import type { Principal } from '../../domain/principal';
import { USERS, type UserDoc } from '../../store/collections';
import { shippingAddressView } from './checkouts';
import { idParams, objectId, orgRpc, orNull, serviceRpc, pageQuery } from './common';
import { listValues, multiParam, parseDateRange, parseObjectIds, parseStatuses } from './list-query';

const listQuery = z.object({
  'statuses[]': multiParam,
  statuses: multiParam,
  currency: text(10).optional(),
  startDate: dateBound.optional(),
  endDate: dateBound.optional(),
  'siteIds[]': multiParam,
  siteIds: multiParam,
  'providerIds[]': multiParam,
  providerIds: multiParam,
  externalReference: text(200).optional().describe("only the transactions with exactly this merchant's reference"),
  email: text(EMAIL_MAX)
    .optional()
    .describe("only the buyer's transactions with this e-mail address (as given, or in lower case)"),
  ...pageQuery(10).shape,
});

const updateBody = z
  .object({
    metadata: metadata().optional(),
    notes: text(5000).nullable().optional(),
    externalReference: text(200).nullable().optional(),
    /** Manual transactions only, along legal transitions, or 3 (mark refunded) when refunds cover the amount; needs `reason`. */
    status: transactionStatus.optional(),
    reason: text(500).optional(),
  })
  .strict();

const manualBody = z
  .object({
    siteId: objectId('siteId'),
    amount: money,
    currency: currencyCode,
    externalReference: text(200).nullish(),
    invoiceNumber: text(200).nullish(),
    /** -1 (initiated) or 1 (completed). */
    status: transactionStatus,
    reason: text(500),
    email: text(EMAIL_MAX).nullish(),
    clientId: text(24).nullish(),
    ipnUrl: text(URL_MAX).nullish(),
    metadata: metadata().optional(),
  })
  .strict();

const recalculateBody = z
  .object({
    /** Check the buyer VAT ID again instead of reusing the check stored with the transaction. */
    recheckVatId: z.boolean().default(false),
  })
  .strict();

const chargebackParams = z.object({
  id: objectId('id'),
  chargebackId: z
    .string()
    .min(1)
    .max(100)
    .regex(/^[A-Za-z0-9_:.-]+$/, 'must be a provider dispute identifier'),
});

/** Admin shape of a transaction (the status history only on the single read). */
export function transactionView(t: checkoutPayments.TransactionRecord) {
  return {
    id: t.id,
    organizationId: t.organizationId,
    siteId: t.siteId,
    testMode: t.testMode,
    checkoutId: orNull(t.checkoutId),
    sessionPublicId: orNull(t.sessionPublicId),
    status: t.status,
    subState: orNull(t.subState),
    amount: t.amount,
    currency: t.currency,
    email: orNull(t.email),
    externalReference: orNull(t.externalReference),
    invoiceNumber: orNull(t.invoiceNumber),
    clientId: orNull(t.clientId),
    returnUrl: orNull(t.returnUrl),
    cancelUrl: orNull(t.cancelUrl),
    ipnUrl: orNull(t.ipnUrl),
    providerId: orNull(t.providerId),
    providerType: orNull(t.providerType),
    providerPaymentId: orNull(t.providerPaymentId),
    providerPayment: { state: t.providerPaymentState, error: orNull(t.providerPaymentError) },
    billingAddress: t.billingAddress ? { ...t.billingAddress, vatId: orNull(t.billingAddress.vatId) } : null,
    shippingAddress: shippingAddressView(t.shippingAddress),
    metadata: t.metadata,
    notes: orNull(t.notes),
    manual: t.manual,
    manualReason: orNull(t.manualReason),
    refunds: t.refunds.map((r) => ({ ...r })),
    chargebacks: t.chargebacks.map((c) => ({
      id: c.id,
      status: c.status as 'open' | 'under_review' | 'won' | 'lost' | 'accepted',
      amount: c.amount,
      currency: c.currency,
      reason: orNull(c.reason),
      at: c.at,
      updatedAt: c.updatedAt,
      resolvedAt: orNull(c.resolvedAt),
      decidedBy: orNull(c.decidedBy),
      decisionReason: orNull(c.decisionReason),
    })),
    createdAt: t.createdAt,
    updatedAt: t.updatedAt,
  };
}

/** Admin shape of a transaction with its status history: the answer of a single read and of every change. */
function transactionWithHistoryView(t: checkoutPayments.TransactionRecord) {
  return { ...transactionView(t), statusHistory: historyView(t) };
}

function historyView(t: checkoutPayments.TransactionRecord) {
  return t.statusHistory.map((h) => ({
    from: h.from ?? null,
    to: h.to,
    subState: orNull(h.subState),
    trigger: h.trigger,
    at: h.at,
    providerEventId: orNull(h.providerEventId),
    requestId: orNull(h.requestId),
    reason: orNull(h.reason),
  }));
}

function deliveryView(d: notificationsIpn.IpnDelivery) {
  return {
    id: d.id,
    sequence: d.sequence,
    status: d.status,
    url: d.url,
    state: d.state,
    attempts: d.attempts.map((a) => ({
      number: a.number,
      at: a.at,
      httpStatus: a.httpStatus || null,
      error: orNull(a.error),
      durationMs: a.durationMs,
      requestedBy: a.requestedBy ?? null,
    })),
    lastHttpStatus: d.lastHttpStatus || null,
    lastError: d.lastError ?? null,
    nextAttemptAt: d.nextAttemptAt ?? null,
    createdAt: d.createdAt,
    updatedAt: d.updatedAt,
  };
}

/**
 * IPN deliveries of a transaction from notifications-ipn (in sequence order) and the HTTP status of
 * the most recent attempt (null before any attempt, or when it got no HTTP answer). `null` as a
 * whole when that service cannot answer, so the transaction itself still reads.
 */
async function ipnOf(deps: AdminDeps, organizationId: string, transactionId: string) {
  try {
    const res = await serviceRpc(deps, 'notificationsIpn', (c) => c.listDeliveries, { organizationId, transactionId });
    const deliveries = [...res.items].sort((a, b) => a.sequence - b.sequence).map(deliveryView);
    const attempts = deliveries.flatMap((d) => d.attempts).sort((a, b) => a.at.localeCompare(b.at));
    return { deliveries, lastHttpStatus: attempts.at(-1)?.httpStatus ?? null };
  } catch (err) {
    deps.logger.warn(
      { err: err instanceof Error ? err.message : String(err), transactionId },
      'IPN deliveries unavailable',
    );
    return null;
  }
}

/** Who asks, as the IPN attempt log shows it: a dashboard user's e-mail address, else the key. */
async function requesterOf(deps: AdminDeps, p: Principal): Promise<string> {
  if (p.kind === 'user') return (await deps.store.collection<UserDoc>(USERS).get(p.userId))?.email ?? actorOf(p);
  return actorOf(p);
}

/** Transactions: scope `transaction:<action>` and role from the method. */
const transactions = resource({ tag: 'Transactions', scopePrefix: 'transaction' });

export const transactionRoutes = [
  transactions({
    method: 'GET',
    path: '/transactions',
    operationId: 'listTransactions',
    response: transactionPage,
    summary:
      'List transactions (statuses[], currency, startDate, endDate, siteIds[], providerIds[], externalReference, email, page, limit)',
    query: listQuery,
    async handler({ deps, org, query }) {
      const range = parseDateRange(query.startDate, query.endDate);
      const res = await orgRpc(deps, org, 'checkoutPayments', (c) => c.listTransactions, {
        statuses: parseStatuses(listValues(query['statuses[]'], query.statuses)),
        currency: query.currency,
        createdFrom: range.createdFrom,
        createdTo: range.createdTo,
        siteIds: parseObjectIds(listValues(query['siteIds[]'], query.siteIds), 'siteIds'),
        providerIds: parseObjectIds(listValues(query['providerIds[]'], query.providerIds), 'providerIds'),
        externalReference: query.externalReference,
        email: query.email?.trim(),
        ids: [],
        page: query.page,
        limit: query.limit,
      });
      return {
        items: res.items.map(transactionView),
        total: res.total,
        totalIsLowerBound: res.totalIsLowerBound,
        page: res.page,
        limit: res.limit,
      };
    },
  }),
  transactions({
    method: 'GET',
    path: '/transactions/:id',
    operationId: 'getTransaction',
    response: transactionDetail,
    summary: 'Get a transaction with its status history and IPN deliveries',
    params: idParams,
    async handler({ deps, org, params }) {
      const t = await orgRpc(deps, org, 'checkoutPayments', (c) => c.getTransaction, { id: params.id });
      return { ...transactionWithHistoryView(t), ipn: await ipnOf(deps, org.organizationId, t.id) };
    },
  }),
  transactions({
    method: 'POST',
    path: '/transactions/:id/ipn/redeliver',
    operationId: 'redeliverTransactionIpn',
    action: 'execute',
    status: 202,
    response: ipnDelivery,
    errors: [409, 422],
    summary:
      "Send the transaction's current status to its ipnUrl again: a new round of up to three signed attempts (fresh timestamp and signature each), shown in the delivery's attempts with who asked; 409 while an IPN of the transaction is still being delivered, 422 without an ipnUrl",
    params: idParams,
    async handler({ deps, org, params, principal }) {
      const t = await orgRpc(deps, org, 'checkoutPayments', (c) => c.getTransaction, { id: params.id });
      if (!t.ipnUrl) throw new UnprocessableError('the transaction has no ipnUrl: there is nowhere to send an IPN');
      const res = await serviceRpc(deps, 'notificationsIpn', (c) => c.redeliverIpn, {
        organizationId: org.organizationId,
        siteId: t.siteId,
        transactionId: t.id,
        testMode: t.testMode,
        status: t.status,
        externalReference: t.externalReference,
        ipnUrl: t.ipnUrl,
        requestedBy: await requesterOf(deps, principal),
      });
      if (!res.delivery) throw new Error('notifications-ipn answered no delivery');
      return deliveryView(res.delivery);
    },
  }),
  transactions({
    method: 'PUT',
    path: '/transactions/:id',
    operationId: 'updateTransaction',
    response: transactionWithHistory,
    errors: [409, 422],
    summary:
      'Update metadata, notes, externalReference; status only for manual transactions along legal transitions, or mark refunded (3) once refunds cover the amount',
    params: idParams,
    body: updateBody,
    async handler({ deps, org, params, body }) {
      const t = await orgRpc(deps, org, 'checkoutPayments', (c) => c.updateTransaction, {
        id: params.id,
        metadata: body.metadata ? { entries: body.metadata } : undefined,
        notes: body.notes === undefined ? undefined : (body.notes ?? ''),
        externalReference: body.externalReference === undefined ? undefined : (body.externalReference ?? ''),
        status: body.status,
        reason: body.reason,
      });
      return transactionWithHistoryView(t);
    },
  }),
  transactions({
    method: 'DELETE',
    path: '/transactions/:id',
    operationId: 'deleteTransaction',
    response: deleted,
    errors: [409],
    summary: 'Soft-delete an initiated, canceled or failed transaction that has no provider payment',
    params: idParams,
    async handler({ deps, org, params }) {
      return orgRpc(deps, org, 'checkoutPayments', (c) => c.deleteTransaction, { id: params.id });
    },
  }),
  transactions({
    method: 'POST',
    path: '/transactions/manual',
    operationId: 'createManualTransaction',
    response: transactionWithHistory,
    summary: 'Record a manual transaction: status -1 (initiated) or 1 (completed) with a reason',
    body: manualBody,
    status: 201,
    async handler({ deps, org, body }) {
      const t = await orgRpc(deps, org, 'checkoutPayments', (c) => c.createManualTransaction, {
        siteId: body.siteId,
        amount: body.amount,
        currency: body.currency,
        externalReference: body.externalReference ?? undefined,
        invoiceNumber: body.invoiceNumber ?? undefined,
        status: body.status,
        reason: body.reason,
        email: body.email ?? undefined,
        clientId: body.clientId ?? undefined,
        ipnUrl: body.ipnUrl ?? undefined,
        metadata: body.metadata ?? {},
      });
      return transactionWithHistoryView(t);
    },
  }),
  transactions({
    method: 'PATCH',
    path: '/transactions/:id/chargeback/:chargebackId',
    action: 'execute',
    role: 'Admin',
    operationId: 'resolveChargeback',
    response: transactionWithHistory,
    errors: [409],
    summary:
      'Decide a recorded chargeback by hand, with the rules of provider reports: open/under_review keep status 4 and block checkouts of the buyer; lost/accepted create the chargeback credit note (invoice linked) and the customer risk hold of the policy; won restores status 1. Repeats answer unchanged; a decided chargeback is 409 CHARGEBACK_FINAL',
    params: chargebackParams,
    body: chargebackUpdateBody,
    async handler({ deps, org, params, body, principal }) {
      const t = await orgRpc(deps, org, 'checkoutPayments', (c) => c.resolveChargeback, {
        id: params.id,
        chargebackId: params.chargebackId,
        status: body.status,
        reason: body.reason,
        actor: actorOf(principal),
      });
      return transactionWithHistoryView(t);
    },
  }),
  transactions({
    method: 'GET',
    path: '/transactions/:id/tax',
    operationId: 'getTransactionTax',
    response: transactionTaxView,
    summary:
      'The tax stored with a transaction and what it was computed from (not_computed: manual, or the tax service could not answer)',
    params: idParams,
    async handler({ deps, org, params }) {
      const res = await orgRpc(deps, org, 'checkoutPayments', (c) => c.getTransactionTax, { id: params.id });
      return transactionTaxView.parse(JSON.parse(res.json));
    },
  }),
  transactions({
    method: 'POST',
    path: '/transactions/:id/recalculate-tax',
    action: 'execute',
    operationId: 'recalculateTransactionTax',
    response: transactionTaxView,
    errors: [409, 422, 503],
    summary:
      "Recompute the tax of an initiated or pending transaction from its stored input with today's rates (recheckVatId: check the VAT ID again); final transactions: 409 TRANSACTION_TAX_FINAL",
    params: idParams,
    body: recalculateBody,
    async handler({ deps, org, params, body }) {
      const res = await orgRpc(deps, org, 'checkoutPayments', (c) => c.recalculateTransactionTax, {
        id: params.id,
        recheckVatId: body.recheckVatId,
      });
      return transactionTaxView.parse(JSON.parse(res.json));
    },
  }),
];
