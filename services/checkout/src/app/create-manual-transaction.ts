import { TransactionStatus } from '@paymesh/contracts';
import { newUnguessableObjectId, ValidationError } from '@paymesh/core';
import { validateCheckoutInput } from '../domain/checkout';
import type { Mode } from '../domain/site';
import type { TransactionDoc } from '../domain/transaction';
import { getSite } from './get-site';
import { checkIpnTargetResolution } from './ipn-target-check';
import type { PaymentsDeps } from './payments-deps';
import { insertTransaction } from './transition';

export interface ManualTransactionInput {
  organizationId: string;
  mode: Mode;
  siteId: string;
  amount: number;
  currency: string;
  externalReference?: string | undefined;
  invoiceNumber?: string | undefined;
  /** -1 (initiated, awaiting confirmation) or 1 (completed, e.g. paid by bank transfer). */
  status: number;
  reason: string;
  email?: string | undefined;
  clientId?: string | undefined;
  ipnUrl?: string | undefined;
  metadata?: Record<string, string> | undefined;
}

/**
 * Records a transaction no provider handled (operator entry). Same field rules as checkout
 * creation; the reason is kept in the status history. Its first status is published like any
 * other (status_changed, sequence 1) but sends no IPN: notifications-ipn announces changes only.
 */
export async function createManualTransaction(
  deps: PaymentsDeps,
  input: ManualTransactionInput,
): Promise<TransactionDoc> {
  const site = await getSite(deps, input.organizationId, input.mode, input.siteId);
  if (input.status !== TransactionStatus.initiated && input.status !== TransactionStatus.completed) {
    throw new ValidationError('status must be -1 (initiated) or 1 (completed)', { field: 'status' });
  }
  const status = input.status;
  const reason = input.reason.trim();
  if (!reason || reason.length > 500)
    throw new ValidationError('reason is required (1 to 500 characters)', { field: 'reason' });
  const now = deps.clock.now();
  const valid = validateCheckoutInput(
    {
      amount: input.amount,
      currency: input.currency,
      externalReference: input.externalReference,
      invoiceNumber: input.invoiceNumber,
      email: input.email,
      clientId: input.clientId,
      ipnUrl: input.ipnUrl,
      metadata: input.metadata,
    },
    { now, defaultLifetimeHours: deps.settings.sessionTtlHours, ipnPolicy: deps.settings.ipnPolicy },
  );
  await checkIpnTargetResolution(deps, valid.ipnUrl);
  const at = now.toISOString();
  const doc = await deps.outbox.commit((tx) =>
    insertTransaction(
      tx,
      {
        // Transaction IDs are public handles (status view): not derivable from one another.
        id: newUnguessableObjectId(deps.clock.now()),
        organizationId: input.organizationId,
        siteId: site.id,
        mode: input.mode,
        checkoutId: null,
        sessionPublicId: null,
        amount: valid.amount,
        currency: valid.currency,
        email: valid.email,
        externalReference: valid.externalReference,
        invoiceNumber: valid.invoiceNumber,
        clientId: valid.clientId,
        returnUrl: null,
        cancelUrl: null,
        ipnUrl: valid.ipnUrl,
        providerId: null,
        providerType: null,
        providerPaymentId: null,
        providerPayment: { state: 'none', error: null, redirectUrl: null },
        billingAddress: null,
        metadata: valid.metadata,
        notes: null,
        manual: true,
        manualReason: reason,
        openCheckoutId: null,
        deletedAt: null,
        createdAt: at,
        updatedAt: at,
      },
      { kind: 'create_manual', status },
      reason,
    ),
  );
  deps.logger.info(
    { transactionId: doc.id, organizationId: input.organizationId, status },
    'manual transaction recorded',
  );
  return doc;
}
