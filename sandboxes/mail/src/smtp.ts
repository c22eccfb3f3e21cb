import type { Logger } from '@paymesh/core';
import { simpleParser, type AddressObject } from 'mailparser';
import { SMTPServer, type SMTPServerAddress } from 'smtp-server';
import type { Inbox } from './domain/inbox';

const addressesOf = (a: AddressObject | AddressObject[] | undefined): string[] =>
  (Array.isArray(a) ? a : a ? [a] : []).flatMap((o) => o.value.map((v) => v.address ?? '')).filter(Boolean);

const envelopeAddress = (a: SMTPServerAddress | false): string => (a ? a.address : '');

/**
 * The SMTP side: accepts every message (any or no login, no TLS), parses it and puts it in the
 * inbox. While the inbox's refuse switch is on, a message is answered with 451 (temporary).
 */
export function buildSmtpServer(inbox: Inbox, logger: Logger): SMTPServer {
  return new SMTPServer({
    authOptional: true,
    allowInsecureAuth: true,
    disabledCommands: ['STARTTLS'],
    banner: 'Paymesh mail catcher',
    logger: false,
    onAuth(auth, _session, callback) {
      callback(null, { user: auth.username ?? 'anonymous' });
    },
    onData(stream, session, callback) {
      simpleParser(stream).then(
        (parsed) => {
          if (inbox.takeRefusal()) {
            const err = Object.assign(new Error('mail catcher refuses this message (test switch)'), {
              responseCode: 451,
            });
            callback(err);
            return;
          }
          const stored = inbox.add({
            envelope: {
              from: envelopeAddress(session.envelope.mailFrom),
              to: session.envelope.rcptTo.map((r) => r.address),
            },
            from: addressesOf(parsed.from)[0] ?? '',
            fromName: parsed.from?.value[0]?.name ?? '',
            replyTo: addressesOf(parsed.replyTo),
            to: addressesOf(parsed.to),
            cc: addressesOf(parsed.cc),
            subject: parsed.subject ?? '',
            messageId: parsed.messageId ?? '',
            text: parsed.text ?? '',
            html: typeof parsed.html === 'string' ? parsed.html : null,
            attachments: parsed.attachments.map((a) => ({
              filename: a.filename ?? 'attachment',
              contentType: a.contentType,
              size: a.size,
              content: a.content,
            })),
          });
          logger.info({ messageId: stored.id, to: stored.envelope.to, subject: stored.subject }, 'message caught');
          callback();
        },
        (err: unknown) => callback(err instanceof Error ? err : new Error(String(err))),
      );
    },
  });
}
