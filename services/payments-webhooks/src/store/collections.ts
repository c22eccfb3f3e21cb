import type { CollectionSpec } from '@paymesh/store';

export const PROVIDERS = 'providers';
export const PAYMENTS = 'payments';
export const EVENT_CLAIMS = 'processed_event_claims';
export const WEBHOOK_RECEIPTS = 'webhook_receipts';
export const MANDATES = 'mandates';

export const collections: CollectionSpec[] = [
  {
    name: PROVIDERS,
    audit: { resource: 'provider' },
    // Read several times per payment; written by provider settings.
    cached: true,
    indexes: [{ name: 'providers_org_mode_created', fields: ['organizationId', 'mode', 'createdAt'] }],
  },
  {
    name: PAYMENTS,
    audit: { resource: 'payment' },
    indexes: [
      { name: 'payments_transaction_unique', fields: ['transactionId'], unique: true },
      { name: 'payments_provider_payment_unique', fields: ['providerId', 'providerPaymentId'], unique: true },
      { name: 'payments_status_reconcile_at', fields: ['status', 'reconcileAt'] },
    ],
  },
  {
    name: EVENT_CLAIMS,
    indexes: [{ name: 'claims_provider_event_unique', fields: ['providerId', 'providerEventId'], unique: true }],
  },
  {
    name: WEBHOOK_RECEIPTS,
    indexes: [{ name: 'receipts_provider_received', fields: ['providerId', 'receivedAt'] }],
  },
  {
    name: MANDATES,
    audit: { resource: 'mandate' },
    indexes: [{ name: 'mandates_provider_mandate_unique', fields: ['providerId', 'providerMandateId'], unique: true }],
  },
];
