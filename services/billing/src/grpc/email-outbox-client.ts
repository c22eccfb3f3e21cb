import { call, makeClient } from '@paymesh/grpc';
import { notificationsIpn } from '@paymesh/proto';
import type { EmailOutboxPort } from '../app/email-outbox-port';

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
          ...(email.html !== null ? { html: email.html } : {}),
          ...(email.replyTo !== null ? { replyTo: email.replyTo } : {}),
          ...(email.fromName !== null ? { fromName: email.fromName } : {}),
          ...(email.fromAddress !== null ? { fromAddress: email.fromAddress } : {}),
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
