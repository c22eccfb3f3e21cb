import { z } from 'zod';
import { DOCUMENT_EMAIL_STATES } from '@paymesh/contracts';

/** Answer of `POST /invoices/:id/send-email` and `POST /credit-notes/:id/send-email`: the send as recorded. */
export const documentEmailResponse = z
  .object({
    emailId: z.string().describe('id of the e-mail in the outbox'),
    at: z.string().describe('when the send was asked for (ISO 8601)'),
    to: z.array(z.string()),
    cc: z.array(z.string()),
    subject: z.string(),
    state: z
      .enum(DOCUMENT_EMAIL_STATES)
      .describe('queued until the SMTP server accepts it (sent) or it is given up after the retries (failed)'),
    detail: z.string().nullable().describe("the SMTP server's answer, or why it failed; null while queued"),
    settledAt: z.string().nullable(),
  })
  .describe('DocumentEmail');
