import type { DocumentEmailRecord } from '@paymesh/contracts';

/**
 * The record of e-mail sends kept on an invoice or credit note (pure). A send is written when the
 * outbox queued it, and settled when notifications-ipn announces the outcome. The two can arrive in
 * either order (a fast SMTP server may accept the message before billing has written the send), so
 * both sides merge by `emailId` and neither loses what the other wrote.
 */

/** The outcome of an outbox e-mail as announced by notifications-ipn. */
export interface EmailOutcome {
  emailId: string;
  to: string[];
  state: 'sent' | 'failed';
  detail: string;
  at: string;
}

/**
 * Adds the queued send, or completes the entry the outcome already created (keeping its state).
 * Returns null when the send is recorded already (a retried request).
 */
export function withSend(
  emails: readonly DocumentEmailRecord[],
  send: DocumentEmailRecord,
): DocumentEmailRecord[] | null {
  const i = emails.findIndex((e) => e.emailId === send.emailId);
  const cur = emails[i];
  if (!cur) return [...emails, send];
  if (cur.subject !== '' || cur.state === 'queued') return null;
  // Settled before it was recorded: keep the outcome, fill in what only the send knows.
  const merged: DocumentEmailRecord = { ...send, state: cur.state, detail: cur.detail, settledAt: cur.settledAt };
  return emails.map((e, j) => (j === i ? merged : e));
}

/**
 * Applies an outcome. Returns null when nothing changes: the send is settled already (a redelivered
 * event). An outcome for a send not recorded yet creates its entry from the event.
 */
export function withOutcome(emails: readonly DocumentEmailRecord[], o: EmailOutcome): DocumentEmailRecord[] | null {
  const i = emails.findIndex((e) => e.emailId === o.emailId);
  const cur = emails[i];
  const settled = { state: o.state, detail: o.detail, settledAt: o.at };
  if (!cur) return [...emails, { emailId: o.emailId, at: o.at, to: o.to, cc: [], subject: '', ...settled }];
  if (cur.state !== 'queued') return null;
  return emails.map((e, j) => (j === i ? { ...e, ...settled } : e));
}
