import { toWire } from '@paymesh/core';
import { notificationsIpn } from '@paymesh/proto';
import type { EmailOutboxPort } from '../app/email-outbox-port';
import { remote } from './remote';

/** {@link EmailOutboxPort} over notifications-ipn's `SendEmail`. */
export function grpcEmailOutboxPort(address: string, deadlineMs: number): EmailOutboxPort & { close(): void } {
  const ipn = remote(notificationsIpn.NotificationsIpnServiceClient, address, deadlineMs, 'notifications-ipn');
  return {
    async send(key, email) {
      const res = await ipn.call(ipn.client.sendEmail, {
        ...toWire(key),
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
      });
      if (!res.email) throw new Error('notifications-ipn answered SendEmail without the e-mail');
      return { emailId: res.email.id, created: res.created };
    },
    close: ipn.close,
  };
}
