import {
  organizationCreated,
  organizationLicenseChanged,
  paymentAdjustmentReported,
  paymentStatusReported,
  Subjects,
  type OrganizationCreated,
  type OrganizationLicenseChanged,
} from '@paymesh/contracts';
import type { Bus, EventEnvelope, EventHandler, Subscription } from '@paymesh/bus';
import { applyPaymentAdjustment } from '../app/apply-payment-adjustment';
import { applyPaymentStatus } from '../app/apply-payment-status';
import type { PaymentsDeps } from '../app/payments-deps';
import { recordLicenseState } from '../app/record-license';

/**
 * Checkout's reactions to other services' events: provider outcomes move transactions; identity
 * events keep the licence replica that buyer-facing calls check. Handlers are idempotent.
 */
export async function startConsumers(bus: Bus, deps: PaymentsDeps): Promise<Subscription[]> {
  /** A durable consumer of money or tenancy facts: never dropped, retried (capped backoff) until handled. */
  const onFact = <T>(durable: string, subjects: string, schema: { parse(d: unknown): T }, handler: EventHandler<T>) =>
    bus.subscribe<T>({ durable, maxDeliver: -1, subjects, decode: (d) => schema.parse(d), handler });
  /** Both identity events carry the organization's licence state as of when they occurred. */
  const recordLicence = async (event: EventEnvelope<OrganizationCreated | OrganizationLicenseChanged>) => {
    await recordLicenseState(deps, {
      organizationId: event.data.organizationId,
      licenseState: event.data.licenseState,
      at: event.occurredAt,
    });
  };

  const payments = await onFact('payment-status', Subjects.paymentStatusReported, paymentStatusReported, async (e) => {
    await applyPaymentStatus(deps, e.data);
  });
  const adjustments = await onFact(
    'payment-adjustment',
    Subjects.paymentAdjustmentReported,
    paymentAdjustmentReported,
    async (e) => {
      await applyPaymentAdjustment(deps, e.data);
    },
  );
  // NOTE: two durables rather than one with two filters: the NATS servers we target include 2.9.
  // recordLicenseState orders by occurredAt, so the two streams may interleave freely.
  const created = await onFact(
    'organization-created',
    Subjects.organizationCreated,
    organizationCreated,
    recordLicence,
  );
  const licence = await onFact(
    'organization-license-changed',
    Subjects.organizationLicenseChanged,
    organizationLicenseChanged,
    recordLicence,
  );
  return [payments, adjustments, created, licence];
}
