import { z } from 'zod';

/**
 * E-mail of invoices and credit notes (billing, through notifications-ipn's outbox): the body of
 * `POST /invoices/:id/send-email` and `POST /credit-notes/:id/send-email`, and the send record kept
 * on the document.
 */

const address = z.string().trim().max(254).email('must be an e-mail address');

export const documentEmailRequest = z
  .object({
    /** Recipient; omitted: the buyer's e-mail on the document (400 EMAIL_RECIPIENT_MISSING when none). */
    to: address.optional(),
    cc: z.array(address).max(10).optional(),
    /** A personal note put above the generated text. */
    message: z.string().trim().min(1).max(2000).optional(),
  })
  .strict();
export type DocumentEmailRequest = z.infer<typeof documentEmailRequest>;

export const DOCUMENT_EMAIL_STATES = ['queued', 'sent', 'failed'] as const;

/** One send of a document by e-mail, as recorded on the invoice or credit note. */
export const documentEmailRecord = z.object({
  emailId: z.string(),
  /** When the send was asked for. */
  at: z.string(),
  to: z.array(z.string()),
  cc: z.array(z.string()),
  subject: z.string(),
  /** queued until the SMTP server accepted it (sent) or it was given up (failed). */
  state: z.enum(DOCUMENT_EMAIL_STATES),
  /** The SMTP server's answer, or why it failed; null while queued. */
  detail: z.string().nullable(),
  settledAt: z.string().nullable(),
});
export type DocumentEmailRecord = z.infer<typeof documentEmailRecord>;
