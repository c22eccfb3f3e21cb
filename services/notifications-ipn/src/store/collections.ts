import type { CollectionSpec, StoredDoc } from '@paymesh/store';
import type { DeliveryFields, LaneFields } from '../domain/delivery';
import type { EmailFields } from '../domain/email';

export const DELIVERIES = 'ipn_deliveries';
/** One document per transaction (id = transactionId) serializing its deliveries. */
export const LANES = 'ipn_lanes';

/** The e-mail outbox: one document per message (attachments by reference). */
export const EMAILS = 'emails';
/** Attachment bytes (base64), one document per attachment, read only when the message is sent. */
export const EMAIL_ATTACHMENTS = 'email_attachments';

export type DeliveryDoc = DeliveryFields & StoredDoc;
export type EmailDoc = EmailFields & StoredDoc;
export interface AttachmentFields {
  organizationId: string;
  filename: string;
  contentType: string;
  size: number;
  contentBase64: string;
  createdAt: string;
}
export type AttachmentDoc = AttachmentFields & StoredDoc;
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
  {
    name: EMAILS,
    indexes: [
      // A repeated SendEmail with the caller's key finds its message already there.
      { name: 'emails_org_mode_key', fields: ['organizationId', 'mode', 'idempotencyKey'], unique: true },
      { name: 'emails_due', fields: ['state', 'nextAttemptAt'] },
      { name: 'emails_org_source', fields: ['organizationId', 'source.kind', 'source.id'] },
    ],
  },
  { name: EMAIL_ATTACHMENTS },
];
