import {
  ConflictError,
  isDomainError,
  newObjectId,
  UnprocessableError,
  ValidationError,
  ErrorCode,
} from '@paymesh/core';
import { webhookPath, type Mode, type ProviderType } from '../domain/provider';
import type { PaymentDoc } from '../domain/payment';
import { PAYMENTS } from '../store/collections';
import type { PaymentsDeps } from './deps';
import { firstReconcileAt } from '../domain/reconcile';
import { adapterOf, findOwnedProvider } from './provider-records';

export interface CreatePaymentCommand {
  organizationId: string;
  mode: Mode;
  siteId: string;
  providerId: string;
  transactionId: string;
  amount: number;
  currency: string;
  description: string | null;
  buyerEmail: string | null;
  returnUrl: string | null;
}

export interface CreatedPaymentView {
  providerType: ProviderType;
  providerPaymentId: string;
  redirectUrl: string | null;
  clientSecret: string | null;
}

const MAX_AMOUNT = 99_999_999;

function validate(cmd: CreatePaymentCommand): void {
  if (!Number.isSafeInteger(cmd.amount) || cmd.amount < 1 || cmd.amount > MAX_AMOUNT) {
    throw new ValidationError(`amount must be an integer from 1 to ${MAX_AMOUNT} (minor units)`, { field: 'amount' });
  }
  if (!/^[A-Za-z]{3}$/.test(cmd.currency))
    throw new ValidationError('currency must be an ISO 4217 code', { field: 'currency' });
  if (cmd.returnUrl !== null) {
    let url: URL | undefined;
    try {
      url = new URL(cmd.returnUrl);
    } catch {
      url = undefined;
    }
    if (!url || (url.protocol !== 'https:' && url.protocol !== 'http:')) {
      throw new ValidationError('return_url must be an absolute http(s) URL', { field: 'return_url' });
    }
  }
}

/**
 * Starts the provider payment of a transaction. Idempotent per transaction: a repeated call (same
 * provider, amount, currency) returns the payment already started, and the provider call itself
 * carries an idempotency key derived from the transaction, so a retry after a lost answer never
 * starts a second payment.
 */
export async function createPayment(deps: PaymentsDeps, cmd: CreatePaymentCommand): Promise<CreatedPaymentView> {
  validate(cmd);
  const payments = deps.store.collection<PaymentDoc>(PAYMENTS);
  const existing = await payments.findOne({ transactionId: cmd.transactionId });
  if (existing) return replay(deps, existing, cmd);

  const provider = await findOwnedProvider(deps, cmd.organizationId, cmd.mode, cmd.providerId);
  if (!provider.enabled) throw new UnprocessableError('provider is disabled', { code: ErrorCode.PROVIDER_DISABLED });
  const adapter = adapterOf(deps, provider);
  const started = await adapter.createPayment({
    transactionId: cmd.transactionId,
    organizationId: cmd.organizationId,
    siteId: cmd.siteId,
    providerId: provider.id,
    amount: cmd.amount,
    currency: cmd.currency,
    description: cmd.description,
    buyerEmail: cmd.buyerEmail,
    returnUrl: cmd.returnUrl,
    webhookUrl: `${deps.publicRootUrl}${webhookPath(provider.type, provider.id)}`,
  });

  const now = deps.clock.now().toISOString();
  const id = newObjectId();
  const doc: Omit<PaymentDoc, 'version'> = {
    id,
    organizationId: cmd.organizationId,
    siteId: cmd.siteId,
    mode: cmd.mode,
    providerId: provider.id,
    providerType: provider.type,
    transactionId: cmd.transactionId,
    providerPaymentId: started.providerPaymentId,
    amount: cmd.amount,
    currency: cmd.currency.toUpperCase(),
    status: started.outcome,
    redirectUrl: started.redirectUrl,
    clientSecret: started.clientSecret ? deps.secrets.seal(started.clientSecret, id) : null,
    lastEventAt: null,
    reconcileAt: deps.reconcile ? firstReconcileAt(new Date(now), deps.reconcile) : null,
    reconcileLooks: 0,
    createdAt: now,
    updatedAt: now,
  };
  try {
    await payments.insert(doc);
  } catch (err) {
    if (!(isDomainError(err) && err.code === ErrorCode.DUPLICATE_KEY)) throw err;
    // A concurrent call for the same transaction stored first; the provider's idempotency key
    // gave both calls the same payment, so answer with the stored one.
    const winner = await payments.findOne({ transactionId: cmd.transactionId });
    if (!winner) throw err;
    return replay(deps, winner, cmd);
  }
  deps.logger.info(
    { transactionId: cmd.transactionId, providerId: provider.id, providerPaymentId: started.providerPaymentId },
    'provider payment started',
  );
  return {
    providerType: provider.type,
    providerPaymentId: started.providerPaymentId,
    redirectUrl: started.redirectUrl,
    clientSecret: started.clientSecret,
  };
}

function replay(deps: PaymentsDeps, existing: PaymentDoc, cmd: CreatePaymentCommand): CreatedPaymentView {
  const same =
    existing.organizationId === cmd.organizationId &&
    existing.mode === cmd.mode &&
    existing.providerId === cmd.providerId &&
    existing.siteId === cmd.siteId &&
    existing.amount === cmd.amount &&
    existing.currency === cmd.currency.toUpperCase();
  if (!same) {
    throw new ConflictError('transaction already has a payment with other parameters', {
      code: ErrorCode.PAYMENT_CONFLICT,
    });
  }
  return {
    providerType: existing.providerType,
    providerPaymentId: existing.providerPaymentId,
    redirectUrl: existing.redirectUrl,
    clientSecret: existing.clientSecret ? deps.secrets.open(existing.clientSecret, existing.id) : null,
  };
}
