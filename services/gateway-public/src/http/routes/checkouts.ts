import { z } from 'zod';
import { countryCode, EMAIL_MAX, row, text, type Row } from '@paymesh/http';
import type { checkoutPayments } from '@paymesh/proto';
import { checkoutCall } from '../../clients';
import { buyerOrigin, type PublicRouteOptions } from '../guards';
import { publicCheckoutFor } from '../public-checkout';
import { required } from './parse';
import { handoffConsumed, handoffCreated, publicCheckout } from '../responses';
import { taxPreview, taxPreviewOf, type TaxCalculation } from '@paymesh/contracts';

/** Billing address as buyers send it; unknown keys are dropped, the rules live in checkout. */
export const billingAddressSchema = z.object({
  name: text(200).optional(),
  email: text(EMAIL_MAX).optional(),
  line1: text(200).optional(),
  city: text(100).optional(),
  postalCode: text(20).optional(),
  country: countryCode.optional(),
  vatId: text(30).optional().describe('buyer VAT ID; spaces, dots and hyphens are ignored; the tax service judges it'),
});

export function billingAddressIn(a: z.infer<typeof billingAddressSchema>): checkoutPayments.BillingAddress {
  return {
    name: a.name ?? '',
    email: a.email ?? '',
    line1: a.line1 ?? '',
    city: a.city ?? '',
    postalCode: a.postalCode ?? '',
    country: a.country ?? '',
    vatId: a.vatId,
  };
}

/**
 * Where the buyer has the goods sent: its country is the destination of goods and shipping lines
 * for tax (the billing country stays the buyer's for everything else). Same limits as the billing
 * address; the rules live in checkout.
 */
export const shippingAddressSchema = z
  .object({
    country: countryCode,
    name: text(200).optional(),
    line1: text(200).optional(),
    city: text(100).optional(),
    postalCode: text(20).optional(),
  })
  .describe("where the goods go; wins over the checkout's shipping address for goods and shipping lines");

export function shippingAddressIn(
  a: z.infer<typeof shippingAddressSchema> | undefined,
): checkoutPayments.ShippingAddress | undefined {
  if (!a) return undefined;
  return {
    country: a.country,
    name: a.name,
    line1: a.line1,
    city: a.city,
    postalCode: a.postalCode,
  };
}

/** Wire -> public shape: an empty VAT ID is not shown. */
export function billingAddressOut(a: checkoutPayments.BillingAddress) {
  const { vatId, ...rest } = a;
  return { ...rest, ...(vatId ? { vatId } : {}) };
}

const taxPreviewBody = z.object({
  billingAddress: z.object({
    country: countryCode,
    postcode: text(20).optional(),
    vatId: text(30).optional().describe('spaces, dots and hyphens are ignored'),
  }),
  shippingAddress: shippingAddressSchema.optional(),
});

const sessionParams = z.object({ id: text(100, 1) });
const consumeParams = sessionParams.extend({ token: text(200, 1) });
const handoffBody = z.object({
  providerId: required('providerId', 100),
  billingAddress: billingAddressSchema.optional(),
});

export type { PublicRouteOptions };

/** A row of the buyer-facing table (checkouts, transactions, VAT). */
export const publicRow = row<PublicRouteOptions>();
export type PublicRow = Row<PublicRouteOptions>;

const checkouts = { tag: 'Checkouts', guard: buyerOrigin } as const;

/** Buyer-facing checkout session routes under /api/v1. */
export const checkoutRows: PublicRow[] = [
  publicRow({
    ...checkouts,
    method: 'GET',
    path: '/checkouts/:id',
    operationId: 'getCheckoutSession',
    summary: 'The buyer view of a checkout session (browsers need an allowed Origin)',
    params: sessionParams,
    response: publicCheckout,
    errors: [400, 403, 404, 409, 429],
    async handler({ deps, req, params, browserOrigin }) {
      // The CORS check of this request asked checkout the same question: its answer is reused.
      const v = await publicCheckoutFor(req, deps.clients, params.id, browserOrigin);
      return {
        id: v.id,
        currency: v.currency,
        amount: v.amount,
        status: v.status,
        lineItems: v.lineItems.map((l) => ({ name: l.name, quantity: l.quantity, unitAmount: l.unitAmount })),
        providers: v.providers,
        branding: {
          ...(v.brandingLogo ? { logo: v.brandingLogo } : {}),
          ...(v.brandingPrimaryColor ? { primaryColor: v.brandingPrimaryColor } : {}),
        },
        expiresAt: v.expiresAt,
        checkoutSettings: { vatIdValidation: v.vatIdValidation },
      };
    },
  }),
  publicRow({
    ...checkouts,
    method: 'POST',
    path: '/checkouts/:id/handoff',
    operationId: 'createHandoff',
    summary: "Store the buyer's provider choice (and billing address) for the provider's page; single-use token",
    params: sessionParams,
    body: handoffBody,
    response: handoffCreated,
    errors: [400, 403, 404, 409, 429],
    async handler({ deps: { clients }, params, body, browserOrigin }) {
      const res = await checkoutCall(clients, (cp) => cp.createHandoff, {
        sessionPublicId: params.id,
        providerId: body.providerId,
        billingAddress: body.billingAddress ? billingAddressIn(body.billingAddress) : undefined,
        browserOrigin,
      });
      return { handoffToken: res.handoffToken, expiresInSeconds: res.expiresInSeconds };
    },
  }),
  publicRow({
    ...checkouts,
    method: 'POST',
    path: '/checkouts/:id/tax-preview',
    operationId: 'previewCheckoutTax',
    summary: 'Tax the buyer would pay with this address; totalGross is what transaction create will charge',
    params: sessionParams,
    body: taxPreviewBody,
    response: taxPreview,
    errors: [400, 403, 404, 409, 429, 503],
    async handler({ deps: { clients }, params, body, browserOrigin }) {
      const { billingAddress: a, shippingAddress } = body;
      const res = await checkoutCall(
        clients,
        (cp) => cp.previewCheckoutTax,
        {
          sessionPublicId: params.id,
          browserOrigin,
          billingAddress: { country: a.country, postcode: a.postcode, vatId: a.vatId },
          shippingAddress: shippingAddressIn(shippingAddress),
        },
        clients.taxDeadlineMs,
      );
      // checkout validated the answer with the same contract; the response schema checks what leaves.
      const calc: TaxCalculation = JSON.parse(res.json);
      return taxPreviewOf(calc);
    },
  }),
  publicRow({
    ...checkouts,
    method: 'POST',
    path: '/checkouts/:id/handoff/:token/consume',
    operationId: 'consumeHandoff',
    summary: 'Read and delete a handoff (single use: 404 afterwards)',
    params: consumeParams,
    response: handoffConsumed,
    errors: [400, 403, 404, 409, 429],
    async handler({ deps: { clients }, params, browserOrigin }) {
      const res = await checkoutCall(clients, (cp) => cp.consumeHandoff, {
        sessionPublicId: params.id,
        handoffToken: params.token,
        browserOrigin,
      });
      return {
        providerId: res.providerId,
        ...(res.billingAddress ? { billingAddress: billingAddressOut(res.billingAddress) } : {}),
        createdAt: res.createdAt,
      };
    },
  }),
];
