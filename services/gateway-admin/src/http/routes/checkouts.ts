import { z } from 'zod';
import type { checkoutPayments } from '@paymesh/proto';
import { checkout, checkoutCreated, checkoutPage, checkoutWithTransactions } from '../responses/checkouts';
import {
  countryCode,
  currencyCode,
  dateBound,
  EMAIL_MAX,
  metadata,
  money,
  percentage,
  quantity,
  text,
  URL_MAX,
} from '@paymesh/http';
import { resource } from '../route-table';
import { objectId, orgRpc, orNull, pageOf, pageQuery } from './common';
import { parseDateRange } from './list-query';

/** Optional string that may also be sent as null (= absent). */
const optString = (max: number) => text(max).nullish();
/** Optional URL that may be sent as null; the service checks scheme and placeholders. */
const optUrl = text(URL_MAX).nullish();

const lineItem = z
  .object({
    name: text(200),
    description: text(1000).nullish(),
    quantity,
    unitPrice: money,
    vatRate: percentage.nullish(),
    itemType: text(50).nullish(),
  })
  .strict();

/** The merchant's shipping address: goods and shipping lines are taxed where it is, unless the buyer gives one. */
const shippingAddress = z
  .object({
    country: countryCode,
    name: optString(200),
    line1: optString(200),
    city: optString(100),
    postalCode: optString(20),
  })
  .strict()
  .describe(
    'where the goods go: the destination of goods and shipping lines for tax, unless the buyer gives a shipping address when paying',
  );

const createBody = z
  .object({
    amount: money,
    currency: currencyCode,
    email: optString(EMAIL_MAX),
    returnUrl: optUrl,
    cancelUrl: optUrl,
    ipnUrl: optUrl,
    externalReference: optString(200),
    invoiceNumber: optString(200),
    clientId: optString(24),
    items: z.array(lineItem).max(100).optional(),
    shippingAddress: shippingAddress.nullish(),
    metadata: metadata().optional(),
    /** RFC 3339; default: now + CHECKOUT_SESSION_TTL_HOURS. */
    expiresAt: optString(64),
  })
  .strict();

const patchBody = z
  .object({
    expiresAt: text(64).optional(),
    returnUrl: optUrl,
    cancelUrl: optUrl,
    ipnUrl: optUrl,
    metadata: metadata().optional(),
  })
  .strict();

const listQuery = pageQuery(20).extend({
  status: z.enum(['pending', 'completed', 'expired']).optional(),
  siteId: objectId('siteId').optional(),
  externalReference: text(200).optional(),
  invoiceNumber: text(200).optional(),
  startDate: dateBound.optional(),
  endDate: dateBound.optional(),
});

const siteParams = z.object({ siteId: objectId('siteId') });
const checkoutParams = z.object({ checkoutId: objectId('checkoutId') });

const orEmpty = (v: string | null | undefined): string => v ?? '';
/** JSON null or missing: the `optional` field is not sent. */
const absent = (v: string | null | undefined): string | undefined => v ?? undefined;

/** Admin shape of a shipping address: fields not given are null; null when there is none. */
export function shippingAddressView(a: checkoutPayments.ShippingAddress | undefined) {
  return a
    ? {
        country: a.country,
        name: orNull(a.name),
        line1: orNull(a.line1),
        city: orNull(a.city),
        postalCode: orNull(a.postalCode),
      }
    : null;
}

/** Admin shape of a checkout session. */
export function checkoutView(c: checkoutPayments.CheckoutRecord) {
  return {
    id: c.id,
    organizationId: c.organizationId,
    siteId: c.siteId,
    testMode: c.testMode,
    sessionPublicId: c.sessionPublicId,
    shortCode: c.shortCode,
    paymentUrl: c.paymentUrl,
    status: c.status,
    amount: c.amount,
    currency: c.currency,
    email: orNull(c.email),
    returnUrl: orNull(c.returnUrl),
    cancelUrl: orNull(c.cancelUrl),
    ipnUrl: orNull(c.ipnUrl),
    externalReference: orNull(c.externalReference),
    invoiceNumber: orNull(c.invoiceNumber),
    clientId: orNull(c.clientId),
    items: c.items.map((i) => ({
      name: i.name,
      description: orNull(i.description),
      quantity: i.quantity,
      unitPrice: i.unitPrice,
      vatRate: i.vatRate ?? null,
      itemType: orNull(i.itemType),
    })),
    shippingAddress: shippingAddressView(c.shippingAddress),
    metadata: c.metadata,
    expiresAt: c.expiresAt,
    completedTransactionId: orNull(c.completedTransactionId),
    createdAt: c.createdAt,
    updatedAt: c.updatedAt,
  };
}

/** Checkouts: scope `checkout:<action>` and role from the method. */
const checkouts = resource({ tag: 'Checkouts', scopePrefix: 'checkout' });

export const checkoutRoutes = [
  checkouts({
    method: 'POST',
    path: '/checkouts/:siteId/create',
    // The spec answers a checkout create with 200, not 201.
    status: 200,
    operationId: 'createCheckout',
    response: checkoutCreated,
    errors: [409],
    summary: 'Create a checkout session for a site (returns id, sessionPublicId, shortCode, paymentUrl)',
    params: siteParams,
    body: createBody,
    async handler({ deps, org, params, body }) {
      const c = await orgRpc(deps, org, 'checkoutPayments', (c) => c.createCheckout, {
        siteId: params.siteId,
        amount: body.amount,
        currency: body.currency,
        email: absent(body.email),
        returnUrl: absent(body.returnUrl),
        cancelUrl: absent(body.cancelUrl),
        ipnUrl: absent(body.ipnUrl),
        externalReference: absent(body.externalReference),
        invoiceNumber: absent(body.invoiceNumber),
        clientId: absent(body.clientId),
        items: (body.items ?? []).map((i) => ({
          name: i.name,
          description: absent(i.description),
          quantity: i.quantity,
          unitPrice: i.unitPrice,
          vatRate: i.vatRate ?? undefined,
          itemType: absent(i.itemType),
        })),
        shippingAddress: body.shippingAddress
          ? {
              country: body.shippingAddress.country,
              name: absent(body.shippingAddress.name),
              line1: absent(body.shippingAddress.line1),
              city: absent(body.shippingAddress.city),
              postalCode: absent(body.shippingAddress.postalCode),
            }
          : undefined,
        metadata: body.metadata ?? {},
        expiresAt: absent(body.expiresAt),
        // Only billing's invoice payment links carry an invoice tax (invoiceTaxJson); the Admin API never does.
      });
      return {
        id: c.id,
        sessionPublicId: c.sessionPublicId,
        shortCode: c.shortCode,
        paymentUrl: c.paymentUrl,
        status: c.status,
        expiresAt: c.expiresAt,
      };
    },
  }),
  checkouts({
    method: 'GET',
    path: '/checkouts',
    operationId: 'listCheckouts',
    response: checkoutPage,
    summary: 'List checkout sessions (filters: status, siteId, externalReference, invoiceNumber, startDate, endDate)',
    query: listQuery,
    async handler({ deps, org, query }) {
      const range = parseDateRange(query.startDate, query.endDate);
      const res = await orgRpc(deps, org, 'checkoutPayments', (c) => c.listCheckouts, {
        status: query.status,
        siteId: query.siteId,
        externalReference: query.externalReference,
        invoiceNumber: query.invoiceNumber,
        createdFrom: range.createdFrom,
        createdTo: range.createdTo,
        page: query.page,
        limit: query.limit,
      });
      return pageOf(res, checkoutView);
    },
  }),
  checkouts({
    method: 'GET',
    path: '/checkouts/:checkoutId',
    operationId: 'getCheckout',
    response: checkoutWithTransactions,
    summary: 'Get a checkout session with its transactions',
    params: checkoutParams,
    async handler({ deps, org, params }) {
      const c = await orgRpc(deps, org, 'checkoutPayments', (c) => c.getCheckout, { id: params.checkoutId });
      return {
        ...checkoutView(c),
        transactions: c.transactions.map((t) => ({ id: t.id, status: t.status, createdAt: t.createdAt })),
      };
    },
  }),
  checkouts({
    method: 'PATCH',
    path: '/checkouts/:checkoutId',
    operationId: 'updateCheckout',
    response: checkout,
    errors: [409],
    summary: 'Change a pending checkout session (expiresAt, returnUrl, cancelUrl, ipnUrl, metadata; null clears a URL)',
    params: checkoutParams,
    body: patchBody,
    async handler({ deps, org, params, body }) {
      const c = await orgRpc(deps, org, 'checkoutPayments', (c) => c.updateCheckout, {
        id: params.checkoutId,
        expiresAt: body.expiresAt,
        returnUrl: body.returnUrl === undefined ? undefined : orEmpty(body.returnUrl),
        cancelUrl: body.cancelUrl === undefined ? undefined : orEmpty(body.cancelUrl),
        ipnUrl: body.ipnUrl === undefined ? undefined : orEmpty(body.ipnUrl),
        metadata: body.metadata ? { entries: body.metadata } : undefined,
      });
      return checkoutView(c);
    },
  }),
];
