import type { ChargebackStatus } from '@paymesh/contracts';
import type { PaymentOutcome } from '../../domain/payment';
import type { MandateStatus } from '../../domain/webhook';

/**
 * provider_c wire words -> ours. Payment statuses and event actions are each mapped in one switch
 * here and nowhere else (docs/providers.md, "provider_c"; docs/adr/0043-provider-c-direct-debit-billing-requests-signed-webhooks.md).
 */

/** Outcome of a payment's status as fetched. */
export function outcomeOfStatus(status: string): PaymentOutcome {
  switch (status) {
    case 'confirmed':
    case 'paid_out':
    case 'charged_back': // collected, then clawed back: the chargeback is a dispute, not an outcome
      return 'succeeded';
    case 'failed':
    case 'customer_approval_denied':
      return 'failed';
    case 'cancelled':
      return 'cancelled';
    default:
      // pending_customer_approval, pending_submission, submitted and newer words: not settled.
      return 'pending';
  }
}

/** What a `payments` event action means for us: an outcome, a dispute state, or nothing. */
export type PaymentAction = { outcome: PaymentOutcome } | { dispute: ChargebackStatus } | null;

export function paymentAction(action: string): PaymentAction {
  switch (action) {
    case 'confirmed':
      return { outcome: 'succeeded' };
    case 'failed':
      return { outcome: 'failed' };
    case 'cancelled':
      return { outcome: 'cancelled' };
    case 'charged_back':
      // The payer's bank took the money back; the merchant may still contest it.
      return { dispute: 'open' };
    case 'chargeback_settled':
      // Deducted from a payout for good: the merchant lost.
      return { dispute: 'lost' };
    case 'chargeback_cancelled':
      // The bank reversed the chargeback: the money is the merchant's again.
      return { dispute: 'won' };
    default:
      // created, submitted, paid_out, late_failure_settled, resubmission_requested, …: no effect.
      return null;
  }
}

/** The mandate state a `mandates` event action records; null for actions that record none. */
export function mandateStatusOf(action: string): MandateStatus | null {
  switch (action) {
    case 'active':
    case 'reinstated':
      return 'active';
    case 'cancelled':
      return 'cancelled';
    case 'failed':
      return 'failed';
    case 'expired':
      return 'expired';
    default:
      // created, submitted, transferred, replaced, resubmission_requested, …: nothing to record.
      return null;
  }
}

/**
 * Our metadata on a payment in the provider's limit of 3 keys: `transaction_id`, `provider_id` and
 * `tenant` = `<organization_id>:<site_id>`.
 */
export function packMetadata(m: {
  transaction_id: string;
  organization_id: string;
  site_id: string;
  provider_id: string;
}): Record<string, string> {
  return { transaction_id: m.transaction_id, provider_id: m.provider_id, tenant: `${m.organization_id}:${m.site_id}` };
}

/** The platform's metadata back from {@link packMetadata}; other keys pass through unchanged. */
export function unpackMetadata(m: Record<string, string>): Record<string, string> {
  const { tenant, ...rest } = m;
  if (tenant === undefined) return rest;
  const [organization, site, extra] = tenant.split(':');
  if (organization === undefined || site === undefined || extra !== undefined) return rest;
  return { ...rest, organization_id: organization, site_id: site };
}
