import type { CollectionSpec } from '@paymesh/store';

export const SCHEDULES = 'schedules';
/** One document per (schedule, cycle) the processor or a manual generate started: the claim. */
export const CYCLE_CLAIMS = 'cycle_claims';
/** Processor runs (the status route's last runs). */
export const PROCESSOR_RUNS = 'processor_runs';

export const collections: CollectionSpec[] = [
  {
    name: SCHEDULES,
    audit: { resource: 'schedule' },
    indexes: [
      { name: 'schedules_org_mode_created', fields: ['organizationId', 'mode', 'createdAt'] },
      { name: 'schedules_org_mode_client', fields: ['organizationId', 'mode', 'template.clientId'] },
      // The processor's scan across organizations: due schedules by state.
      { name: 'schedules_status_due', fields: ['status', 'dueFrom'] },
      // The portal: a buyer's schedules.
      { name: 'schedules_org_mode_buyer', fields: ['organizationId', 'mode', 'buyerEmail'] },
    ],
  },
  {
    name: CYCLE_CLAIMS,
    indexes: [
      // Exactly one claim, hence one invoice, per schedule and cycle.
      { name: 'cycle_claims_key', fields: ['claimKey'], unique: true },
      { name: 'cycle_claims_state', fields: ['state', 'leaseUntil'] },
    ],
  },
  { name: PROCESSOR_RUNS, indexes: [{ name: 'processor_runs_started', fields: ['startedAt'] }] },
];
