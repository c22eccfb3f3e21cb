import { errorResponses } from '@paymesh/http';
import { z, type ZodTypeAny } from 'zod';

const timestamp = z.string().datetime({ offset: true });

/** The spec's public checkout session view. */
export const publicCheckout = z.object({
  id: z.string().describe('public checkout session ID'),
  currency: z.string(),
  amount: z.number().int().describe('minor units'),
  status: z.string().describe('pending, completed or expired'),
  lineItems: z.array(z.object({ name: z.string(), quantity: z.number().int(), unitAmount: z.number().int().describe('minor units') })),
  providers: z.array(z.string()).describe('provider records offered to the buyer'),
  branding: z.object({ logo: z.string().optional(), primaryColor: z.string().optional() }),
  expiresAt: timestamp,
  checkoutSettings: z.object({ vatIdValidation: z.string().describe('effective mode: none, format or vies') }),
});

export const handoffCreated = z.object({ handoffToken: z.string(), expiresInSeconds: z.number().int() });

const billingAddress = z.object({ name: z.string(), email: z.string(), line1: z.string(), city: z.string(), postalCode: z.string(), country: z.string(), vatId: z.string().optional() });

export const handoffConsumed = z.object({ providerId: z.string(), billingAddress: billingAddress.optional(), createdAt: timestamp });

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
  cancelUrl: z.string().optional().describe('with {transactionId} replaced; where the hosted checkout sends a buyer whose payment was canceled or failed'),
  createdAt: timestamp,
});

export const transactionAction = z.object({ transactionId: z.string(), status: z.number().int(), subState: z.string().optional() });

/** Answer of `POST /vat/validate`: the spec's `valid`, `companyName`, `address` and the check's evidence. */
export const vatValidation = z.object({
  valid: z.boolean().describe('VIES confirms the VAT ID is registered'),
  companyName: z.string().nullable().describe('as VIES knows it; null where the member state withholds it (e.g. DE) or for an invalid ID'),
  address: z.string().nullable().describe('as VIES knows it (lines separated by \\n); null where withheld or for an invalid ID'),
  vatId: z.string().describe('the VAT ID normalized: prefix and number, no separators (DE123456789)'),
  countryCode: z.string().describe('VIES prefix of the VAT ID (EL for Greece, XI for Northern Ireland)'),
  status: z.enum(['valid', 'invalid']),
  checkedAt: timestamp.describe('when VIES answered (a cached answer keeps its time)'),
  consultationNumber: z.string().nullable().describe('VIES consultation number; null for these public checks, which name no requester'),
});

/** Answer of `GET /vat/eu-country/:code`. */
export const euCountryView = z.object({
  countryCode: z.string().describe('ISO 3166-1 alpha-2 (GR for Greece), or XI for Northern Ireland'),
  euMember: z.boolean().describe('an EU member state'),
  euVatAreaForGoods: z.boolean().describe('inside the EU VAT area for goods: the member states and Northern Ireland (XI)'),
  vatPrefix: z.string().nullable().describe('prefix of its VAT IDs in VIES (EL for Greece); null outside the EU VAT area'),
  name: z.string().describe('English short name'),
});

export const webhookReceived = z.object({ received: z.literal(true), duplicate: z.literal(true).optional() });

const ERROR_DESCRIPTIONS: Readonly<Record<number, string>> = {
  400: 'Invalid input (the message names the field); for webhooks: verification failed',
  403: 'Origin not allowed for this checkout, or the merchant licence does not allow it (`LICENSE_BLOCKED`, `LICENSE_NOT_ACTIVATED`)',
  404: 'Not found',
  409: 'The checkout session or transaction is in a state that does not allow it; coded conflicts carry `code` and `requestId`',
  422: 'A precondition failed (for example at the payment provider)',
  429: 'Rate limit exceeded; see the Retry-After header',
  503: 'A dependency cannot answer right now: the payment side cannot finish an earlier attempt yet (`PAYMENT_RETIRE_PENDING`; nothing new was started, retry later), VIES cannot confirm a VAT ID (`VIES_UNAVAILABLE`; the buyer may continue as a consumer), or the tax service cannot compute a tax that is needed (`TAX_UNAVAILABLE`; retry later)',
};
export { ERROR_DESCRIPTIONS as PUBLIC_ERROR_DESCRIPTIONS };

/**
 * Route option for schemas that document the input only: the handler's parse() is the one check of
 * params and body (its messages and the Origin check before it), so fastify does not validate the
 * same input a second time.
 */
export const inputDocumentedOnly = { validatorCompiler: () => (data: unknown) => ({ value: data }) };

/** Route documentation: tag, operationId, summary, success body and the error statuses it answers. */
export function doc(o: {
  tag: string;
  operationId: string;
  summary: string;
  response: ZodTypeAny;
  errors: number[];
  params?: ZodTypeAny;
  body?: ZodTypeAny;
}) {
  return {
    tags: [o.tag],
    operationId: o.operationId,
    summary: o.summary,
    ...(o.params ? { params: o.params } : {}),
    ...(o.body ? { body: o.body } : {}),
    response: { 200: o.response, ...errorResponses(o.errors) },
  };
}
