import type { CollectionSpec, StoredDoc } from '@paymesh/store';
import type { DeliveryFields, LaneFields } from '../domain/delivery';

export const DELIVERIES = 'ipn_deliveries';
/** One document per transaction (id = transactionId) serializing its deliveries. */
export const LANES = 'ipn_lanes';

export type DeliveryDoc = DeliveryFields & StoredDoc;
export type LaneDoc = LaneFields & StoredDoc;

export const collections: CollectionSpec[] = [
  {
    name: DELIVERIES,
    indexes: [
      // A redelivered status-change event finds its delivery already there.
      { name: 'ipn_deliveries_tx_sequence', fields: ['transactionId', 'sequence'], unique: true },
      { name: 'ipn_deliveries_due', fields: ['state', 'nextAttemptAt'] },
      { name: 'ipn_deliveries_org_tx', fields: ['organizationId', 'transactionId'] },
    ],
  },
  { name: LANES },
];
