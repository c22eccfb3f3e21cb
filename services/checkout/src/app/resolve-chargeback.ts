import { NotFoundError, ValidationError } from '@paymesh/core';
import { CHARGEBACK_STATUSES, manualChargebackChange } from '../domain/customer-hold';
import type { Mode } from '../domain/site';
import type { ChargebackStatus, TransactionDoc } from '../domain/transaction';
import { loadTransactionForOrg } from './access';
import { chargebackPlan } from './chargeback-plan';
import type { PaymentsDeps } from './payments-deps';
import { riskSettingsOf } from './risk-settings';
import { applyTransition } from './transition';

export interface ResolveChargebackInput {
  chargebackId: string;
  status: string;
  reason: string | null;
  /** Who decides (`user:<id>`, `api_key:<id>`, `system_key:<id>`). */
  actor: string;
}

const MAX_REASON = 500;

/**
 * An operator sets the status of a recorded chargeback (PATCH /transactions/:id/chargeback/:chargebackId)
 * with exactly the rules of a provider report (chargeback-plan.ts): status 4 while active, the
 * chargeback credit note and the customer risk hold on lost / accepted, status 1 again on won.
 * Repeating the current status writes nothing; a decided chargeback cannot change (409
 * CHARGEBACK_FINAL); an unknown chargeback is 404. A later provider report of a chargeback decided
 * here changes nothing (a decided chargeback is final for everyone).
 */
export async function resolveChargeback(
  deps: PaymentsDeps,
  ref: { organizationId: string; mode: Mode; id: string },
  input: ResolveChargebackInput,
): Promise<TransactionDoc> {
  const status = CHARGEBACK_STATUSES.find((s) => s === input.status);
  if (!status)
    throw new ValidationError(`status must be one of ${CHARGEBACK_STATUSES.join(', ')}`, { field: 'status' });
  const reason = input.reason?.trim() || null;
  if (reason && reason.length > MAX_REASON)
    throw new ValidationError(`reason must be at most ${MAX_REASON} characters`, { field: 'reason' });
  const current = await loadTransactionForOrg(deps, ref.organizationId, ref.mode, ref.id);
  const risk = await riskSettingsOf(deps, { organizationId: current.organizationId, mode: current.mode });
  const at = deps.clock.now().toISOString();
  const out = await applyTransition(
    deps,
    current.id,
    (cur) => {
      const existing = (cur.chargebacks ?? []).find((c) => c.id === input.chargebackId);
      if (!existing) throw new NotFoundError('chargeback not found');
      if (manualChargebackChange(existing, status) === 'unchanged') return null;
      return chargebackPlan(
        cur,
        { ...existing, status: status satisfies ChargebackStatus, at, decidedBy: input.actor },
        { trigger: { kind: 'manual_dispute', status }, risk, note: reason },
      );
    },
    current,
  );
  if (out.result === 'changed' || out.result === 'unchanged') {
    deps.logger.info(
      { transactionId: current.id, chargebackId: input.chargebackId, status, actor: input.actor },
      'chargeback resolved manually',
    );
  }
  return out.doc;
}
