import type { Committer } from '@paymesh/bus';
import type { Clock, Logger } from '@paymesh/core';
import type { EventMap } from '@paymesh/contracts';
import type { DocumentStore } from '@paymesh/store';
import type { EmailSender } from '../delivery/smtp-sender';
import type { EmailTiming } from '../domain/email';

/** Everything the e-mail outbox use cases need. */
export interface EmailDeps {
  store: DocumentStore;
  outbox: Committer<EventMap>;
  logger: Logger;
  clock: Clock;
  /** null when no SMTP server is configured: enqueueing is refused (EMAIL_NOT_CONFIGURED). */
  sender: EmailSender | null;
  timing: EmailTiming;
  /** Domain of the Message-ID header of sent messages. */
  messageIdDomain: string;
}
