import { z } from 'zod';
import { billingAddressAnswer } from '@paymesh/http';

const timestamp = z.string().datetime({ offset: true });

/** The spec's public checkout session view. */
export const publicCheckout = z.object({
  id: z.string().describe('public checkout session ID'),
  currency: z.string(),
  amount: z.number().int().describe('minor units'),
  status: z.string().describe('pending, completed or expired'),
  lineItems: z.array(
    z.object({ name: z.string(), quantity: z.number().int(), unitAmount: z.number().int().describe('minor units') }),
  ),
  providers: z.array(z.string()).describe('provider records offered to the buyer'),
  branding: z.object({ logo: z.string().optional(), primaryColor: z.string().optional() }),
  expiresAt: timestamp,
  checkoutSettings: z.object({ vatIdValidation: z.string().describe('effective mode: none, format or vies') }),
});

export const handoffCreated = z.object({ handoffToken: z.string(), expiresInSeconds: z.number().int() });

const billingAddress = billingAddressAnswer.extend({ vatId: z.string().optional() });

export const handoffConsumed = z.object({
  providerId: z.string(),
  billingAddress: billingAddress.optional(),
  createdAt: timestamp,
});

export const transactionCreated = z.object({
  transactionId: z.string(),
  status: z.number().int(),
  providerType: z.string().optional(),
  redirectUrl: z.string().optional().describe('where to send the buyer to pay, for redirect providers'),
  clientSecret: z.string().optional().describe('for providers paid in the page'),
});

export const transactionStatus = z.object({
  status: z.number().int(),
  externalReference: z.string().optional(),
  amount: z.number().int(),
  currency: z.string(),
  returnUrl: z.string().optional(),
  cancelUrl: z
    .string()
    .optional()
    .describe(
      'with {transactionId} replaced; where the hosted checkout sends a buyer whose payment was canceled or failed',
    ),
  createdAt: timestamp,
});

export const transactionAction = z.object({
  transactionId: z.string(),
  status: z.number().int(),
  subState: z.string().optional(),
});

/** Answer of `POST /vat/validate`: the spec's `valid`, `companyName`, `address` and the check's evidence. */
export const vatValidation = z.object({
  valid: z.boolean().describe('VIES confirms the VAT ID is registered'),
  companyName: z
    .string()
    .describe(
      'as VIES knows it; always present, the empty string where the member state withholds it (e.g. DE) or for an invalid ID',
    ),
  address: z
    .string()
    .describe(
      'as VIES knows it (lines separated by \\n); always present, the empty string where withheld or for an invalid ID',
    ),
  vatId: z.string().describe('the VAT ID normalized: prefix and number, no separators (DE123456789)'),
  countryCode: z.string().describe('VIES prefix of the VAT ID (EL for Greece, XI for Northern Ireland)'),
  status: z.enum(['valid', 'invalid']),
  checkedAt: timestamp.describe('when VIES answered (a cached answer keeps its time)'),
  consultationNumber: z
    .string()
    .nullable()
    .describe('VIES consultation number; null for these public checks, which name no requester'),
});

/** Answer of `GET /vat/eu-country/:code`. */
export const euCountryView = z.object({
  countryCode: z.string().describe('ISO 3166-1 alpha-2 (GR for Greece), or XI for Northern Ireland'),
  euMember: z.boolean().describe('an EU member state'),
  euVatAreaForGoods: z
    .boolean()
    .describe('inside the EU VAT area for goods: the member states and Northern Ireland (XI)'),
  vatPrefix: z
    .string()
    .nullable()
    .describe('prefix of its VAT IDs in VIES (EL for Greece); null outside the EU VAT area'),
  name: z.string().describe('English short name'),
});

export const webhookReceived = z.object({ received: z.literal(true), duplicate: z.literal(true).optional() });

/** Answer of portal sign-in (verify-otp, magic-link) and refresh. */
export const portalTokenResponse = z.object({
  token: z.string().describe('opaque portal session token (not a JWT); send as Authorization: Bearer <token>'),
  expiresAt: timestamp.describe('when the token stops working; renew with POST /portal/auth/refresh'),
});

export const portalSessionView = z.object({ email: z.string(), hasSubscriptions: z.boolean() });

const portalDocument = z.object({
  id: z.string(),
  type: z.enum(['invoice', 'credit-note']).describe('the `type` to ask the PDF with'),
  number: z.string().describe("the final number; a draft's pro forma label"),
  status: z.string().describe('invoices: draft, issued, partially_paid or paid; credit notes: issued'),
  issueDate: z.string().nullable(),
  dueDate: z.string().nullable(),
  currency: z.string(),
  total: z.number().int().describe('gross, minor units'),
  amountDue: z.number().int().describe('still to pay, minor units (0 for credit notes)'),
  pdfAvailable: z.boolean(),
  eInvoiceFormats: z
    .array(z.enum(['xrechnung', 'peppol', 'zugferd']))
    .describe('e-invoice formats offered for download (issued invoices only)'),
  createdAt: timestamp,
});

export const portalDocumentPage = z.object({
  items: z.array(portalDocument),
  total: z.number().int(),
  page: z.number().int(),
  limit: z.number().int(),
});

const nullableTime = z.string().nullable();

/** The spec's subscription list (answered by the recurring service, passed through). */
export const portalSubscriptionPage = z
  .object({
    subscriptions: z.array(
      z
        .object({
          id: z.string(),
          name: z.string(),
          status: z.string().describe('active, cancel_requested, ...'),
          cadence: z.string(),
          currency: z.string(),
          nextChargeDate: nullableTime,
          effectiveAt: nullableTime,
          estimatedNextAmount: z.number().int(),
          upcomingChargesCount: z.number().int(),
        })
        .passthrough(),
    ),
    total: z.number().int(),
    page: z.number().int(),
    limit: z.number().int(),
  })
  .passthrough();

/** The spec's upcoming-charges response (answered by the recurring service, passed through). */
export const portalUpcomingResponse = z
  .object({
    subscriptionId: z.string(),
    name: z.string(),
    status: z.string(),
    cadence: z.string(),
    currency: z.string(),
    nextChargeDate: nullableTime,
    effectiveAt: nullableTime,
    cancellationReason: z.string().nullable(),
    cancellationRequestedAt: nullableTime,
    upcoming: z.array(
      z
        .object({
          id: z.string(),
          scheduledDate: z.string(),
          dueDate: z.string().nullable(),
          currency: z.string(),
          baseAmount: z.number().int(),
          usageAmount: z.number().int(),
          taxEstimate: z.number().int(),
          estimatedTotal: z.number().int(),
          proformaAvailable: z.boolean(),
          proformaPreviewId: z.string().nullable(),
          proformaPreviewLabel: z.string().nullable(),
        })
        .passthrough(),
    ),
  })
  .passthrough();

/** The spec's cancel response (answered by the recurring service, passed through). */
export const portalCancelResponse = z
  .object({
    subscriptionId: z.string(),
    status: z.string(),
    alreadyCancelled: z.boolean(),
    effectiveAt: nullableTime,
    cancellationReason: z.string().nullable(),
    cancellationRequestedAt: nullableTime,
    message: z.string(),
  })
  .passthrough();

const ERROR_DESCRIPTIONS: Readonly<Record<number, string>> = {
  400: 'Invalid input (the message names the field); for webhooks: verification failed',
  401: 'Portal: missing, expired or revoked portal session token; a wrong, expired or used code; a replayed, expired or malformed magic link or refresh cookie',
  403: 'Origin not allowed for this checkout, or the merchant licence does not allow it (`LICENSE_BLOCKED`, `LICENSE_NOT_ACTIVATED`); portal e-invoices: `EINVOICE_DISABLED`, `EINVOICE_FORMAT_NOT_ALLOWED`',
  404: 'Not found',
  409: 'The checkout session or transaction is in a state that does not allow it; coded conflicts carry `code` and `requestId`',
  422: 'A precondition failed (for example at the payment provider); portal e-invoices: `EINVOICE_READINESS_FAILED`',
  429: 'Rate limit exceeded; see the Retry-After header',
  501: 'Not available yet on this deployment',
  503: 'A dependency cannot answer right now: the payment side cannot finish an earlier attempt yet (`PAYMENT_RETIRE_PENDING`; nothing new was started, retry later), VIES cannot confirm a VAT ID (`VIES_UNAVAILABLE`; the buyer may continue as a consumer), or the tax service cannot compute a tax that is needed (`TAX_UNAVAILABLE`; retry later)',
};
export { ERROR_DESCRIPTIONS as PUBLIC_ERROR_DESCRIPTIONS };
