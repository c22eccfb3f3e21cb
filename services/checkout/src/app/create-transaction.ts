import { TransactionStatus } from '@paymesh/contracts';
import {
  ConflictError,
  isDomainError,
  newUnguessableObjectId,
  UnavailableError,
  UnprocessableError,
  ValidationError,
  type ErrorKind,
  ErrorCode,
} from '@paymesh/core';
import { validateBillingAddress, type BillingAddress, type BillingAddressInput } from '../domain/billing-address';
import type { CheckoutDoc } from '../domain/checkout';
import { validateOptionalShippingAddress, type ShippingAddressInput } from '../domain/shipping-address';
import type { SiteDoc } from '../domain/site';
import { hostedReturnUrl, type TransactionDoc } from '../domain/transaction';
import { TRANSACTIONS } from '../store/collections';
import { assertOpenForPayment, loadCheckoutForBuyer } from './access';
import type { ProviderInfo } from './payments-port';
import type { PaymentsDeps } from './payments-deps';
import { resolveProvider } from './resolve-provider';
import { assertBuyerMayPay } from './buyer-risk';
import { applyTransition, insertTransaction } from './transition';
import { checkoutTax, type CheckoutTax } from './checkout-tax';
import { cancelProviderPayment } from './cancel-transaction';

export interface CreateTransactionInput {
  sessionPublicId: string;
  providerId: string;
  billingAddress?: BillingAddressInput | undefined;
  /** Where the buyer has the goods sent; absent: the checkout's shipping address, if any. */
  shippingAddress?: ShippingAddressInput | undefined;
  browserOrigin: string;
}

export interface CreatedTransaction {
  transaction: TransactionDoc;
  providerType: string;
  redirectUrl: string | null;
  clientSecret: string | null;
}

/**
 * Provider refusals: nothing was created at the provider, so the attempt has failed. A conflict is
 * not one of them: it says a payment for this transaction already exists (with other terms).
 */
const DEFINITIVE: ReadonlySet<ErrorKind> = new Set([
  'validation',
  'unprocessable',
  'forbidden',
  'not_found',
  'unauthenticated',
]);

function describe(checkout: CheckoutDoc, site: SiteDoc): string {
  const ref = checkout.invoiceNumber
    ? `Invoice ${checkout.invoiceNumber}`
    : `Order ${checkout.externalReference ?? ''}`.trim();
  return `${site.name}: ${ref}`;
}

/**
 * Before a new attempt of a checkout, the provider payments of its earlier failed or canceled
 * attempts are canceled at the provider: a declined card payment stays payable there, and the
 * buyer could otherwise pay both it and the new one. An earlier payment that turns out captured
 * refuses the new attempt (409 CHECKOUT_ALREADY_PAID); when the provider cannot be reached, no
 * new payment is started (503).
 */
async function retireEarlierAttempts(deps: PaymentsDeps, checkout: CheckoutDoc): Promise<void> {
  // No attempt of this session has ended yet (nearly every first transaction): none to look for.
  // A session stored before the field was kept carries none and is looked at.
  if (checkout.attemptsEnded === false) return;
  const earlier = await deps.store.collection<TransactionDoc>(TRANSACTIONS).find(
    {
      checkoutId: checkout.id,
      status: { $in: [TransactionStatus.failed, TransactionStatus.canceled] },
      providerPaymentId: { $exists: true },
    },
    { limit: 20 },
  );
  for (const t of earlier.items) {
    if (!t.providerId) continue;
    try {
      await cancelProviderPayment(deps, t, t.providerId);
    } catch (err) {
      if (isDomainError(err) && err.kind === 'not_found') continue;
      if (isDomainError(err) && err.code === ErrorCode.PAYMENT_ALREADY_CAPTURED) {
        throw new ConflictError('an earlier attempt of this checkout was paid; its completion is on the way', {
          code: ErrorCode.CHECKOUT_ALREADY_PAID,
        });
      }
      throw new UnavailableError('could not close an earlier payment attempt of this checkout; retry shortly', {
        code: ErrorCode.PAYMENT_RETIRE_PENDING,
        cause: err,
      });
    }
  }
}

/** Inserts a pending transaction, or finds the session's open one (at most one per session). */
async function openTransaction(
  deps: PaymentsDeps,
  checkout: CheckoutDoc,
  provider: ProviderInfo,
  billing: BillingAddress,
  taxed: CheckoutTax,
): Promise<TransactionDoc> {
  const txs = deps.store.collection<TransactionDoc>(TRANSACTIONS);
  for (let attempt = 1; attempt <= 3; attempt++) {
    const now = deps.clock.now().toISOString();
    try {
      const doc = await deps.outbox.commit((tx) =>
        insertTransaction(
          tx,
          {
            // Transaction IDs are public handles (status view): not derivable from one another.
            id: newUnguessableObjectId(deps.clock.now()),
            organizationId: checkout.organizationId,
            siteId: checkout.siteId,
            mode: checkout.mode,
            checkoutId: checkout.id,
            sessionPublicId: checkout.sessionPublicId,
            amount: taxed.amount,
            currency: checkout.currency,
            email: billing.email || checkout.email,
            externalReference: checkout.externalReference,
            invoiceNumber: checkout.invoiceNumber,
            clientId: checkout.clientId,
            returnUrl: checkout.returnUrl,
            cancelUrl: checkout.cancelUrl,
            ipnUrl: checkout.ipnUrl,
            providerId: provider.id,
            providerType: provider.type,
            providerPaymentId: null,
            providerPayment: { state: 'requested', error: null, redirectUrl: null },
            billingAddress: billing,
            shippingAddress: taxed.shippingAddress,
            metadata: { ...checkout.metadata },
            notes: null,
            manual: false,
            manualReason: null,
            openCheckoutId: checkout.id,
            deletedAt: null,
            tax: taxed.tax,
            taxInput: taxed.input,
            ...(taxed.invoiceId ? { taxSource: { kind: 'invoice' as const, invoiceId: taxed.invoiceId } } : {}),
            ...(deps.settings.transactionAbandonAfterMs !== undefined
              ? { expireAt: new Date(Date.parse(now) + deps.settings.transactionAbandonAfterMs).toISOString() }
              : {}),
            createdAt: now,
            updatedAt: now,
          },
          { kind: 'create' },
        ),
      );
      deps.logger.info(
        { transactionId: doc.id, checkoutId: checkout.id, providerId: provider.id },
        'transaction created',
      );
      return doc;
    } catch (err) {
      if (!(err instanceof ConflictError && err.code === ErrorCode.DUPLICATE_KEY)) throw err;
    }
    const open = await txs.findOne({ openCheckoutId: checkout.id });
    if (!open) continue; // it just left pending; try again
    if (open.providerId !== provider.id) {
      throw new ConflictError(
        `checkout session has a pending transaction ${open.id} with another provider; cancel it first`,
        {
          code: ErrorCode.TRANSACTION_ALREADY_OPEN,
        },
      );
    }
    deps.logger.info(
      { transactionId: open.id, checkoutId: checkout.id },
      'resuming the open transaction of the session',
    );
    return open;
  }
  throw new ConflictError('checkout session is busy; retry', { code: ErrorCode.TRANSACTION_ALREADY_OPEN });
}

async function recordIndeterminate(deps: PaymentsDeps, id: string, error: string): Promise<void> {
  await deps.store.collection<TransactionDoc>(TRANSACTIONS).update(id, (cur) => ({
    ...cur,
    providerPayment: {
      ...cur.providerPayment,
      state: cur.providerPayment.state === 'created' ? 'created' : 'indeterminate',
      error,
    },
    updatedAt: deps.clock.now().toISOString(),
  }));
}

/**
 * Starts (or resumes) the provider payment of a pending transaction; CreatePayment is idempotent
 * per transaction ID, so a retry never creates a second payment.
 *
 * - Success: the provider payment ID and redirect URL are stored.
 * - Refusal by the provider (invalid request, credentials, ...): nothing exists at the provider, so
 *   the transaction moves to failed (2) and the buyer gets 422 PAYMENT_START_FAILED.
 * - Anything else (timeout, provider or payments service unavailable, conflict): a payment may or may not
 *   exist, so the transaction stays pending with the error recorded and the buyer gets 503; the
 *   provider's webhook or a retry of the same request settles it.
 */
async function startPayment(
  deps: PaymentsDeps,
  doc: TransactionDoc,
  checkout: CheckoutDoc,
  site: SiteDoc,
): Promise<CreatedTransaction> {
  const providerId = doc.providerId ?? '';
  try {
    const res = await deps.payments.createPayment({
      organizationId: doc.organizationId,
      siteId: doc.siteId,
      providerId,
      transactionId: doc.id,
      amount: doc.amount,
      currency: doc.currency,
      description: describe(checkout, site),
      buyerEmail: doc.billingAddress?.email ?? doc.email ?? '',
      // The provider sends the buyer back to the hosted checkout, which waits for the final status
      // and then follows the merchant's returnUrl or cancelUrl (see docs/adr/0052-hosted-checkout-page.md).
      returnUrl: hostedReturnUrl(checkout.paymentUrl, doc.id),
      testMode: doc.mode === 'test',
    });
    const stored = await deps.store.collection<TransactionDoc>(TRANSACTIONS).update(
      doc.id,
      (cur) => ({
        ...cur,
        providerType: res.providerType || cur.providerType,
        providerPaymentId: cur.providerPaymentId ?? (res.providerPaymentId || null),
        providerPayment: { state: 'created', error: null, redirectUrl: res.redirectUrl || null },
        updatedAt: deps.clock.now().toISOString(),
      }),
      undefined,
      doc,
    );
    return {
      transaction: stored,
      providerType: stored.providerType ?? '',
      redirectUrl: res.redirectUrl || null,
      clientSecret: res.clientSecret || null,
    };
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    if (doc.providerPayment.state === 'created') {
      // Resuming a payment that exists: keep it; the stored redirect still works.
      deps.logger.warn(
        { transactionId: doc.id, err: message },
        'CreatePayment repeat failed; answering with the stored payment',
      );
      return {
        transaction: doc,
        providerType: doc.providerType ?? '',
        redirectUrl: doc.providerPayment.redirectUrl,
        clientSecret: null,
      };
    }
    if (isDomainError(err) && DEFINITIVE.has(err.kind)) {
      deps.logger.warn({ transactionId: doc.id, err: message }, 'provider refused the payment');
      // Unless the provider's webhook proved meanwhile that a payment exists after all.
      await applyTransition(deps, doc.id, (cur) =>
        cur.status === TransactionStatus.pending && cur.providerPaymentId === null
          ? {
              trigger: { kind: 'payment_start_failed' },
              reason: message,
              patch: { providerPayment: { state: 'failed', error: message, redirectUrl: null } },
            }
          : null,
      );
      throw new UnprocessableError(`the payment provider refused the payment: ${message}`, {
        code: ErrorCode.PAYMENT_START_FAILED,
      });
    }
    deps.logger.warn(
      { transactionId: doc.id, err: message },
      'CreatePayment outcome unknown; transaction stays pending',
    );
    await recordIndeterminate(deps, doc.id, message);
    throw new UnavailableError(`the payment provider could not be reached; retry to resume transaction ${doc.id}`, {
      code: ErrorCode.PAYMENT_START_PENDING,
      cause: err,
    });
  }
}

/**
 * Buyer submits a checkout: validates the billing address, the session (licence, origin, not
 * expired or paid), the provider and the buyer's disputes and holds (coded 409s), computes the tax (see checkout-tax.ts: with net-priced items
 * the buyer is charged net + tax), records a pending transaction with it (status 0, with its first
 * status event) and starts the provider payment. A repeat with the same provider resumes the
 * session's open transaction (with the tax it was created with) instead of creating another one.
 */
export async function createTransaction(
  deps: PaymentsDeps,
  input: CreateTransactionInput,
): Promise<CreatedTransaction> {
  if (!input.billingAddress) throw new ValidationError('billingAddress is required', { field: 'billingAddress' });
  const billing = validateBillingAddress(input.billingAddress);
  const shipping = validateOptionalShippingAddress(input.shippingAddress);
  if (!input.providerId.trim()) throw new ValidationError('providerId is required', { field: 'providerId' });
  const { checkout, site } = await loadCheckoutForBuyer(deps, input.sessionPublicId, input.browserOrigin, {
    enforceLicense: true,
  });
  assertOpenForPayment(checkout, deps.clock.now());
  const provider = await resolveProvider(deps, checkout, input.providerId);
  // Disputes and customer risk holds of the buyer (the session's e-mail and client, and the e-mail entered now).
  await assertBuyerMayPay(deps, checkout, billing.email, provider.type);
  const taxed = await checkoutTax(
    deps,
    checkout,
    site,
    {
      billing: { country: billing.country, postcode: billing.postalCode || undefined, vatId: billing.vatId },
      shipping,
    },
    'proceed',
  );
  await retireEarlierAttempts(deps, checkout);
  const doc = await openTransaction(deps, checkout, provider, billing, taxed);
  const started = await startPayment(deps, doc, checkout, site);
  if (
    started.transaction.status === TransactionStatus.canceled &&
    started.transaction.providerPayment.state === 'created'
  ) {
    // The buyer canceled while the payment was being started: the payment just created must not
    // stay payable, and its client secret must not be handed out.
    await cancelProviderPayment(deps, doc, doc.providerId ?? '').catch((err: unknown) =>
      deps.logger.error({ err, transactionId: doc.id }, 'could not cancel the payment of a canceled transaction'),
    );
    throw new ConflictError('the transaction was canceled while its payment was being started', {
      code: ErrorCode.TRANSACTION_CANCELED,
    });
  }
  return started;
}
