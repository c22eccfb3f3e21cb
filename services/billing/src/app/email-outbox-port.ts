import type { OrgKey } from './deps';

/** What billing hands to the e-mail outbox for one document. */
export interface OutboxEmail {
  idempotencyKey: string;
  source: { kind: 'invoice' | 'credit_note'; id: string };
  to: string[];
  cc: string[];
  subject: string;
  text: string;
  /** The same content as HTML (sent as multipart/alternative with the text). */
  html: string | null;
  /** Where replies go (the merchant's billing address). */
  replyTo: string | null;
  /** From display name (the merchant's company name). */
  fromName: string | null;
  /** From address: the merchant's verified sender; null: the platform's. */
  fromAddress: string | null;
  attachments: Array<{ filename: string; contentType: string; content: Buffer }>;
}

/** notifications-ipn's e-mail outbox as billing uses it. */
export interface EmailOutboxPort {
  /** Queues the message (idempotent by key); resolves with the outbox e-mail id. */
  send(key: OrgKey, email: OutboxEmail): Promise<{ emailId: string; created: boolean }>;
}
