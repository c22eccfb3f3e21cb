import { call, makeClient } from '@paymesh/grpc';
import { notificationsIpn } from '@paymesh/proto';
import type { OrgKey } from '../app/deps';

/** What billing hands to the e-mail outbox for one document. */
export interface OutboxEmail {
  idempotencyKey: string;
  source: { kind: 'invoice' | 'credit_note'; id: string };
  to: string[];
  cc: string[];
  subject: string;
  text: string;
  attachments: Array<{ filename: string; contentType: string; content: Buffer }>;
}

/** notifications-ipn's e-mail outbox as billing uses it. */
export interface EmailOutboxPort {
  /** Queues the message (idempotent by key); resolves with the outbox e-mail id. */
  send(key: OrgKey, email: OutboxEmail): Promise<{ emailId: string; created: boolean }>;
}

/** {@link EmailOutboxPort} over notifications-ipn's `SendEmail`. */
export function grpcEmailOutboxPort(address: string, deadlineMs: number): EmailOutboxPort & { close(): void } {
  const client = makeClient(notificationsIpn.NotificationsIpnServiceClient, address);
  return {
    async send(key, email) {
      const res = await call(
        client,
        client.sendEmail,
        {
          organizationId: key.organizationId,
          testMode: key.mode === 'test',
          idempotencyKey: email.idempotencyKey,
          sourceKind: email.source.kind,
          sourceId: email.source.id,
          to: email.to,
          cc: email.cc,
          subject: email.subject,
          text: email.text,
          attachments: email.attachments,
        },
        { deadlineMs, target: 'notifications-ipn' },
      );
      if (!res.email) throw new Error('notifications-ipn answered SendEmail without the e-mail');
      return { emailId: res.email.id, created: res.created };
    },
    close() {
      client.close();
    },
  };
}
