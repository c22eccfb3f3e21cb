import { ValidationError } from '@paymesh/core';
import { CHECKOUT_LIMITS, validateMetadata } from '../domain/checkout';
import type { Mode } from '../domain/site';
import { isProviderBacked, type TransactionDoc } from '../domain/transaction';
import { isTxStatus } from '../domain/transaction-state';
import { TRANSACTIONS } from '../store/collections';
import { loadTransactionForOrg } from './access';
import type { PaymentsDeps } from './payments-deps';
import { applyTransition } from './transition';

/** Admin changes; absent fields stay. */
export interface TransactionPatch {
  metadata?: Record<string, string> | undefined;
  /** Empty string clears. */
  notes?: string | undefined;
  /** Empty string clears (only while an invoice number identifies the transaction). */
  externalReference?: string | undefined;
  status?: number | undefined;
  reason?: string | undefined;
}

const MAX_NOTES = 5000;
const MAX_REASON = 500;

/** Whether the refunds recorded on the transaction cover its amount. */
function refundedInFull(doc: TransactionDoc): boolean {
  const refunded = (doc.refunds ?? []).reduce((sum, r) => sum + r.amount, 0);
  return refunded >= doc.amount;
}

/**
 * Updates merchant fields of a transaction. A status change goes through the state machine as a
 * manual update: allowed only for transactions without a provider payment (the provider decides
 * the others) and only along legal transitions, with a reason recorded in the history. "Mark
 * refunded" (1 -> 3) is also open to provider-backed transactions whose recorded refunds cover
 * the amount.
 */
export async function updateTransaction(
  deps: PaymentsDeps,
  ref: { organizationId: string; mode: Mode; id: string },
  patch: TransactionPatch,
): Promise<TransactionDoc> {
  const current = await loadTransactionForOrg(deps, ref.organizationId, ref.mode, ref.id);
  const fields: Partial<TransactionDoc> = {};
  if (patch.metadata !== undefined) fields.metadata = validateMetadata(patch.metadata);
  if (patch.notes !== undefined) {
    if (patch.notes.length > MAX_NOTES)
      throw new ValidationError(`notes must be at most ${MAX_NOTES} characters`, { field: 'notes' });
    fields.notes = patch.notes.trim() || null;
  }
  if (patch.externalReference !== undefined) {
    const ref2 = patch.externalReference.trim();
    if (ref2.length > CHECKOUT_LIMITS.maxReference) {
      throw new ValidationError(`externalReference must be at most ${CHECKOUT_LIMITS.maxReference} characters`, {
        field: 'externalReference',
      });
    }
    if (!ref2 && !current.invoiceNumber) {
      throw new ValidationError('externalReference cannot be cleared on a transaction without an invoice number', {
        field: 'externalReference',
      });
    }
    fields.externalReference = ref2 || null;
  }
  const reason = patch.reason?.trim() ?? '';
  if (patch.status !== undefined) {
    if (!isTxStatus(patch.status))
      throw new ValidationError('status must be one of -2, -1, 0, 1, 2, 3, 4', { field: 'status' });
    if (!reason) throw new ValidationError('reason is required with a status change', { field: 'reason' });
    if (reason.length > MAX_REASON)
      throw new ValidationError(`reason must be at most ${MAX_REASON} characters`, { field: 'reason' });
    const to = patch.status;
    const out = await applyTransition(deps, current.id, (cur) => ({
      trigger: {
        kind: 'manual_update',
        to,
        providerBacked: isProviderBacked(cur),
        refundedInFull: refundedInFull(cur),
      },
      reason,
      patch: { ...fields, updatedAt: deps.clock.now().toISOString() },
    }));
    return out.doc;
  }
  if (Object.keys(fields).length === 0) {
    throw new ValidationError('nothing to update: give metadata, notes, externalReference or status');
  }
  const updated = await deps.store.collection<TransactionDoc>(TRANSACTIONS).update(current.id, (cur) => ({
    ...cur,
    ...fields,
    updatedAt: deps.clock.now().toISOString(),
  }));
  deps.logger.info({ transactionId: updated.id, fields: Object.keys(fields) }, 'transaction updated');
  return updated;
}
