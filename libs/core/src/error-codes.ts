import type { ErrorKind } from './errors';

/**
 * The one catalogue of machine-readable error codes. A code names one condition for good (clients
 * and other services branch on it), and its kind fixes the HTTP and gRPC status it travels with
 * (see ERROR_KINDS). docs/errors.md lists the same table; a unit test keeps the two in step.
 * Add a code here (and there) before throwing it; never reuse or rename one.
 */
export const ERROR_CATALOGUE = {
  // Checkout sessions
  CHECKOUT_NOT_PENDING: { kind: 'conflict', description: 'a completed or expired checkout session cannot be changed' },
  CHECKOUT_EXPIRED: { kind: 'conflict', description: 'the checkout session has expired' },
  CHECKOUT_COMPLETED: { kind: 'conflict', description: 'the checkout session is already paid' },
  CHECKOUT_ALREADY_PAID: {
    kind: 'conflict',
    description: 'an earlier payment attempt of the checkout was paid; its completion is on the way',
  },
  CHECKOUT_BLOCKED_BY_DISPUTE: {
    kind: 'conflict',
    description: 'an open or under-review dispute exists for the same buyer (spec)',
  },
  CHECKOUT_BLOCKED_BY_CUSTOMER_HOLD: {
    kind: 'conflict',
    description: 'a final merchant-loss customer risk hold blocks checkout (spec)',
  },
  CHECKOUT_RESTRICTED_BY_CUSTOMER_HOLD: {
    kind: 'conflict',
    description: 'a customer risk hold allows only safe provider types (spec)',
  },
  // Transactions
  TRANSACTION_ALREADY_OPEN: {
    kind: 'conflict',
    description: 'the checkout session has a pending transaction with another provider, or is busy',
  },
  TRANSACTION_CANCELED: {
    kind: 'conflict',
    description: 'the transaction was canceled while its payment was being started',
  },
  TRANSACTION_NOT_DELETABLE: {
    kind: 'conflict',
    description: 'only initiated, canceled or failed transactions without a provider payment can be deleted',
  },
  ILLEGAL_TRANSITION: { kind: 'conflict', description: 'the transaction state machine forbids this transition' },
  CHARGEBACK_FINAL: {
    kind: 'conflict',
    description: 'the chargeback is decided (won, lost or accepted) and cannot take another status',
  },
  // Tax of checkouts and transactions
  TAX_UNAVAILABLE: {
    kind: 'unavailable',
    description:
      'the tax service cannot answer and the answer is needed (a preview, or a charge that depends on the tax); retry',
  },
  TRANSACTION_TAX_FINAL: {
    kind: 'conflict',
    description: 'tax of a final transaction is fixed; corrections go through an invoice or credit note',
  },
  TAX_CHANGES_AMOUNT: {
    kind: 'conflict',
    description: 'the recalculated tax would change the amount the buyer is charged',
  },
  TRANSACTION_TAX_NO_INPUT: {
    kind: 'unprocessable',
    description: 'the transaction has no tax input to recalculate from (manual transactions carry no tax)',
  },
  // Payments at the provider
  PAYMENTS_UNAVAILABLE: { kind: 'unavailable', description: 'payment providers cannot be reached right now; retry' },
  PAYMENT_START_FAILED: { kind: 'unprocessable', description: 'the payment provider refused to start the payment' },
  PAYMENT_START_PENDING: {
    kind: 'unavailable',
    description: 'the provider could not be reached while starting the payment; retrying resumes it',
  },
  PAYMENT_RETIRE_PENDING: {
    kind: 'unavailable',
    description: 'an earlier payment attempt could not be closed yet; retry shortly',
  },
  PAYMENT_STARTING: {
    kind: 'conflict',
    description: 'the payment is still being started at the provider; retry the cancel shortly',
  },
  PAYMENT_ALREADY_CAPTURED: {
    kind: 'conflict',
    description: 'the payment is already captured at the provider; refund it instead',
  },
  PAYMENT_CONFLICT: { kind: 'conflict', description: 'the transaction already has a payment with other parameters' },
  CANCEL_REFUSED: { kind: 'conflict', description: 'the payment provider refused to cancel the payment' },
  PROVIDER_DISABLED: { kind: 'unprocessable', description: 'the payment provider record is disabled' },
  PROVIDER_DECLINED: { kind: 'unprocessable', description: 'the payment provider declined the request' },
  PROVIDER_UNAVAILABLE: { kind: 'unavailable', description: 'the payment provider is temporarily unavailable' },
  PROVIDER_OUTCOME_UNKNOWN: {
    kind: 'unavailable',
    description:
      'the payment provider call may or may not have taken effect; retry with the same request or wait for its webhook',
  },
  PROVIDER_INVALID_REQUEST: { kind: 'validation', description: 'the payment provider rejected the request as invalid' },
  PROVIDER_AUTH_FAILED: {
    kind: 'unprocessable',
    description: 'the payment provider rejected the configured credentials',
  },
  PROVIDER_RESOURCE_MISSING: {
    kind: 'not_found',
    description: 'the payment provider does not know the referenced object',
  },
  PROVIDER_IDEMPOTENCY_MISMATCH: {
    kind: 'conflict',
    description: 'the payment provider saw the idempotency key with other parameters',
  },
  // Merchant account
  LICENSE_BLOCKED: { kind: 'forbidden', description: 'the merchant account is blocked' },
  LICENSE_NOT_ACTIVATED: { kind: 'forbidden', description: 'the merchant account is not activated' },
  DOMAIN_ALREADY_REGISTERED: { kind: 'conflict', description: 'the custom domain host name is registered already' },
  USER_EXISTS_ELSEWHERE: { kind: 'conflict', description: 'the e-mail address has an account in another organization' },
  // Invoicing (spec)
  EINVOICE_DISABLED: { kind: 'forbidden', description: 'e-invoice generation is disabled in the settings (spec)' },
  EINVOICE_FORMAT_NOT_ALLOWED: {
    kind: 'forbidden',
    description: 'the requested e-invoice format is not allowed in the settings (spec)',
  },
  INVOICE_NOT_ISSUED: {
    kind: 'conflict',
    description: 'a draft invoice cannot be sent by e-mail or produce XML or hybrid e-invoice output (spec)',
  },
  EINVOICE_READINESS_FAILED: {
    kind: 'unprocessable',
    description: 'the invoice or settings lack data an e-invoice needs (spec)',
  },
  INVOICE_NOT_DRAFT: {
    kind: 'conflict',
    description: 'only a draft invoice can be changed or deleted; correct or void an issued one',
  },
  INVOICE_NOT_VOIDABLE: {
    kind: 'conflict',
    description: 'only an issued invoice can be voided; delete a draft instead',
  },
  DOCUMENT_RETAINED: {
    kind: 'conflict',
    description:
      'issued documents, their files and audit events must be kept for the retention period (§ 147 AO); what they depend on cannot be deleted before it ends',
  },
  TRANSACTION_ALREADY_INVOICED: {
    kind: 'conflict',
    description: 'the transaction already has an invoice generated from it',
  },
  INVOICE_CURRENCY_MISMATCH: {
    kind: 'conflict',
    description: 'the transaction is in another currency than the invoice',
  },
  INVOICE_BUYER_INCOMPLETE: {
    kind: 'unprocessable',
    description: "the invoice's client has neither a tax country nor an address country to tax by",
  },
  IDEMPOTENCY_KEY_REUSED: {
    kind: 'conflict',
    description:
      'the Idempotency-Key was already used: with another request body or route, or for a resource since deleted',
  },
  IDEMPOTENCY_KEY_IN_PROGRESS: {
    kind: 'conflict',
    description: 'a request with this Idempotency-Key is still being processed; retry shortly to get its answer',
  },
  DATA_IMPORT_INVALID: {
    kind: 'unprocessable',
    description:
      'rows of the imported CSV file break the rules of their create route; the answer lists them and nothing was imported',
  },
  DATEV_SETTINGS_MISSING: {
    kind: 'unprocessable',
    description:
      'a DATEV export needs the adviser and client numbers (datev.consultantNumber, datev.clientNumber) in the invoicing settings',
  },
  DATEV_EXPORT_RUNNING: {
    kind: 'conflict',
    description: 'another DATEV export of the organization is running; retry when it has finished',
  },
  DATEV_EXPORT_NOT_KEPT: {
    kind: 'conflict',
    description:
      'the zip of this DATEV export cannot be downloaded: it is still running, it failed, or it was streamed to its caller and not kept',
  },
  GDPDU_DTD_MISSING: {
    kind: 'unavailable',
    description: 'the GDPdU DTD the tax-audit export ships is missing from this installation (see docs/datev-gdpdu.md)',
  },
  // Tax
  TAX_RATE_MISSING: {
    kind: 'unprocessable',
    description: 'no standard VAT rate is valid in the place-of-supply country on the tax point',
  },
  TAX_RATE_EXISTS: { kind: 'conflict', description: 'a tax rate with this code and validFrom exists already' },
  TAX_RATE_OVERLAP: {
    kind: 'conflict',
    description: 'another tax rate of the same code is valid during part of the period',
  },
  TAX_REPORT_EUR_RATE_MISSING: {
    kind: 'unprocessable',
    description:
      "a VAT OSS figure is in a currency without an EUR rate: the ECB rate of the quarter's last day (or the next publication day) is not published yet or not kept, or not quoted for the currency, and eurRates gives none; the return is made out in EUR",
  },
  VIES_UNAVAILABLE: {
    kind: 'unavailable',
    description: 'VIES cannot confirm the VAT ID right now; the buyer may continue and is charged VAT as a consumer',
  },
  // Buyer portal
  PORTAL_DISABLED: {
    kind: 'forbidden',
    description:
      'the buyer portal is turned off for this deployment (PORTAL_ENABLED) or organization (portal settings enabled)',
  },
  PORTAL_MAGIC_LINKS_DISABLED: {
    kind: 'forbidden',
    description:
      'portal magic links are turned off for this deployment (PORTAL_MAGIC_LINKS_ENABLED) or organization (portal settings magicLinksEnabled)',
  },
  PORTAL_NOTHING_VISIBLE: {
    kind: 'unprocessable',
    description: 'the e-mail has no portal-visible invoice, credit note or recurring subscription in the organization',
  },
  // Store and bus (internal: services retry or report them; they do not reach clients as such)
  // E-mail
  EMAIL_NOT_CONFIGURED: {
    kind: 'unavailable',
    description: 'no SMTP server is configured for sending e-mail (SMTP_HOST)',
  },
  EMAIL_KEY_REUSED: {
    kind: 'conflict',
    description: 'the e-mail idempotency key was already used for another message',
  },
  EMAIL_RECIPIENT_MISSING: {
    kind: 'validation',
    description: 'no recipient given and the client has no e-mail address',
  },
  SENDER_EMAIL_MISSING: {
    kind: 'unprocessable',
    description: 'a sender verification needs an address: set documents.senderEmail in the invoicing settings first',
  },
  DUPLICATE_KEY: { kind: 'conflict', description: 'a unique key is taken (store)' },
  VERSION_CONFLICT: { kind: 'conflict', description: 'the document changed since it was read; retry (store)' },
  BUS_CONNECT_FAILED: { kind: 'unavailable', description: 'NATS cannot be reached (bus)' },
  BUS_JETSTREAM_UNAVAILABLE: { kind: 'unavailable', description: 'NATS has no usable JetStream (bus)' },
  BUS_SUBJECTS_OVERLAP: { kind: 'conflict', description: 'another stream captures the subjects (bus)' },
  BUS_STREAM_CONFLICT: { kind: 'conflict', description: 'the stream exists with an incompatible configuration (bus)' },
  BUS_STREAM_REPLICAS_UNAVAILABLE: {
    kind: 'unavailable',
    description: 'NATS cannot place as many stream replicas as BUS_STREAM_REPLICAS asks (bus)',
  },
  BUS_STREAM_STORAGE_UNAVAILABLE: {
    kind: 'unavailable',
    description: "JetStream cannot reserve a stream's size cap (BUS_STREAM_MAX_BYTES times its replicas) (bus)",
  },
  BUS_CONSUMER_CONFLICT: {
    kind: 'conflict',
    description: 'the durable consumer exists with an incompatible configuration (bus)',
  },
  EVENT_NOT_JSON: { kind: 'validation', description: 'an event body is not valid JSON (bus)' },
  EVENT_NOT_ENVELOPE: { kind: 'validation', description: 'an event body is not an event envelope (bus)' },
} as const satisfies Record<string, { kind: ErrorKind; description: string }>;

export type ErrorCodeName = keyof typeof ERROR_CATALOGUE;

/** `ErrorCode.CHECKOUT_EXPIRED === 'CHECKOUT_EXPIRED'`: the names, for throwing and comparing without string literals. */
export const ErrorCode: { readonly [K in ErrorCodeName]: K } = Object.freeze(
  Object.fromEntries(Object.keys(ERROR_CATALOGUE).map((k) => [k, k])) as { [K in ErrorCodeName]: K },
);

export function isErrorCode(value: unknown): value is ErrorCodeName {
  return typeof value === 'string' && Object.prototype.hasOwnProperty.call(ERROR_CATALOGUE, value);
}
