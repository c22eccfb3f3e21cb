import {
  organizationCreated,
  organizationLicenseChanged,
  paymentAdjustmentReported,
  paymentStatusReported,
  Subjects,
  type PaymentAdjustmentReported,
  type OrganizationCreated,
  type OrganizationLicenseChanged,
  type PaymentStatusReported,
} from '@paymesh/contracts';
import type { Bus, Subscription } from '@paymesh/bus';
import { applyPaymentAdjustment } from '../app/apply-payment-adjustment';
import { applyPaymentStatus } from '../app/apply-payment-status';
import type { PaymentsDeps } from '../app/payments-deps';
import { recordLicenseState } from '../app/record-license';

/**
 * Checkout's reactions to other services' events: provider outcomes move transactions; identity
 * events keep the licence replica that buyer-facing calls check. Handlers are idempotent.
 */
export async function startConsumers(bus: Bus, deps: PaymentsDeps): Promise<Subscription[]> {
  const payments = await bus.subscribe<PaymentStatusReported>({
    durable: 'payment-status',
    // Money and tenancy facts are never dropped: retried (capped backoff) until handled.
    maxDeliver: -1,
    subjects: Subjects.paymentStatusReported,
    decode: (d) => paymentStatusReported.parse(d),
    handler: async (event) => {
      await applyPaymentStatus(deps, event.data);
    },
  });
  const adjustments = await bus.subscribe<PaymentAdjustmentReported>({
    durable: 'payment-adjustment',
    // Refunds and disputes are money facts: retried (capped backoff) until handled.
    maxDeliver: -1,
    subjects: Subjects.paymentAdjustmentReported,
    decode: (d) => paymentAdjustmentReported.parse(d),
    handler: async (event) => {
      await applyPaymentAdjustment(deps, event.data);
    },
  });
  // NOTE: two durables rather than one with two filters: the NATS servers we target include 2.9.
  // recordLicenseState orders by occurredAt, so the two streams may interleave freely.
  const created = await bus.subscribe<OrganizationCreated>({
    durable: 'organization-created',
    // Money and tenancy facts are never dropped: retried (capped backoff) until handled.
    maxDeliver: -1,
    subjects: Subjects.organizationCreated,
    decode: (d) => organizationCreated.parse(d),
    handler: async (event) => {
      await recordLicenseState(deps, {
        organizationId: event.data.organizationId,
        licenseState: event.data.licenseState,
        at: event.occurredAt,
      });
    },
  });
  const licence = await bus.subscribe<OrganizationLicenseChanged>({
    durable: 'organization-license-changed',
    // Money and tenancy facts are never dropped: retried (capped backoff) until handled.
    maxDeliver: -1,
    subjects: Subjects.organizationLicenseChanged,
    decode: (d) => organizationLicenseChanged.parse(d),
    handler: async (event) => {
      await recordLicenseState(deps, {
        organizationId: event.data.organizationId,
        licenseState: event.data.licenseState,
        at: event.occurredAt,
      });
    },
  });
  return [payments, adjustments, created, licence];
}
