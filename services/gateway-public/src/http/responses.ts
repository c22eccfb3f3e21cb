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

const billingAddress = z.object({ name: z.string(), email: z.string(), line1: z.string(), city: z.string(), postalCode: z.string(), country: z.string() });

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
  createdAt: timestamp,
});

export const transactionAction = z.object({ transactionId: z.string(), status: z.number().int(), subState: z.string().optional() });

export const webhookReceived = z.object({ received: z.literal(true), duplicate: z.literal(true).optional() });

const ERROR_DESCRIPTIONS: Readonly<Record<number, string>> = {
  400: 'Invalid input (the message names the field); for webhooks: verification failed',
  403: 'Origin not allowed for this checkout, or the merchant licence does not allow it (`LICENSE_BLOCKED`, `LICENSE_NOT_ACTIVATED`)',
  404: 'Not found',
  409: 'The checkout session or transaction is in a state that does not allow it; coded conflicts carry `code` and `requestId`',
  422: 'A precondition failed (for example at the payment provider)',
  429: 'Rate limit exceeded; see the Retry-After header',
  503: 'The payment side cannot finish an earlier attempt yet (`PAYMENT_RETIRE_PENDING`); nothing new was started, retry later',
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
