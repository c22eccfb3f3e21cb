import { ConflictError } from '@paymesh/core';
import { eventId, type CommitScope } from '@paymesh/bus';
import { Subjects, type EventMap } from '@paymesh/contracts';
import { applyEmailOutcome, isEmailDue, planEmailClaim, type EmailFields, type SmtpOutcome } from '../domain/email';
import { EMAIL_ATTACHMENTS, EMAILS, type AttachmentDoc, type EmailDoc } from '../store/collections';
import type { EmailDeps } from './email-deps';
import { fieldsOf } from './fields';

export type EmailProcessResult =
  'skipped' | 'waiting' | 'exhausted' | 'sent' | 'retry-scheduled' | 'failed' | 'outcome-dropped';

/** Announces a final state (sent or failed) in the same transaction that stores it. */
function emitSettled(tx: CommitScope<EventMap>, stored: EmailDoc, e: EmailFields, at: string): void {
  if (e.state === 'pending') return;
  const last = e.attempts[e.attempts.length - 1];
  const subject = e.state === 'sent' ? Subjects.emailDelivered : Subjects.emailFailed;
  tx.emit(
    subject,
    {
      organizationId: e.organizationId,
      mode: e.mode,
      emailId: stored.id,
      source: e.source,
      to: e.message.to,
      state: e.state,
      attempts: e.attempts.length,
      detail: e.state === 'sent' ? (last?.smtpResponse ?? '') : (e.lastError ?? ''),
      at,
    },
    { id: eventId(subject, stored.id), occurredAt: at },
  );
}

async function loadAttachments(deps: EmailDeps, e: EmailDoc) {
  const files = deps.store.collection<AttachmentDoc>(EMAIL_ATTACHMENTS);
  return Promise.all(
    e.message.attachments.map(async (ref) => {
      const doc = await files.get(ref.attachmentId);
      if (!doc) throw new Error(`attachment ${ref.attachmentId} of e-mail ${e.id} is missing`);
      return {
        filename: ref.filename,
        contentType: ref.contentType,
        content: Buffer.from(doc.contentBase64, 'base64'),
      };
    }),
  );
}

/**
 * Works on one due e-mail: claims the attempt (stored before the SMTP conversation), sends it,
 * stores the outcome and, when final, emits `notifications.email.delivered` / `failed` with it.
 * Safe on several replicas: the claim is a compare-and-set, so one of them sends a given attempt.
 */
export async function processEmail(deps: EmailDeps, id: string, known?: EmailDoc): Promise<EmailProcessResult> {
  const emails = deps.store.collection<EmailDoc>(EMAILS);
  const e = known ?? (await emails.get(id));
  if (!e || !isEmailDue(e, deps.clock.now())) return 'skipped';
  const sender = deps.sender;
  if (!sender) return 'skipped';
  const log = deps.logger.child({ emailId: id, source: e.source });

  const plan = planEmailClaim(fieldsOf(e), deps.clock.now(), deps.timing);
  if (plan.kind === 'skip') return 'skipped';
  let claimed: EmailDoc;
  try {
    claimed = await deps.outbox.commit(async (tx) => {
      const stored = await tx.collection<EmailDoc>(EMAILS).replace(e.id, e.version, plan.email);
      if (plan.kind === 'exhausted') emitSettled(tx, stored, plan.email, plan.email.updatedAt);
      return stored;
    });
  } catch (err) {
    if (err instanceof ConflictError) return 'skipped'; // another replica moved it first
    throw err;
  }
  if (plan.kind === 'wait') return 'waiting';
  if (plan.kind === 'exhausted') {
    log.warn('e-mail failed: its last attempt was interrupted');
    return 'exhausted';
  }

  let outcome: SmtpOutcome;
  try {
    const attachments = await loadAttachments(deps, claimed);
    outcome = await sender.send({
      ...claimed.message,
      attachments,
      messageId: `<${claimed.id}@${deps.messageIdDomain}>`,
    });
  } catch (err) {
    outcome = {
      ok: false,
      smtpResponse: '',
      responseCode: 0,
      error: err instanceof Error ? err.message : String(err),
      durationMs: 0,
    };
  }
  const alog = log.child({ attempt: plan.attempt, durationMs: outcome.durationMs });

  let stored: EmailDoc | null = null;
  try {
    stored = await deps.outbox.commit(async (tx) => {
      const col = tx.collection<EmailDoc>(EMAILS);
      const cur = await col.get(id);
      if (!cur) return null;
      const now = deps.clock.now();
      const res = applyEmailOutcome(fieldsOf(cur), plan.attempt, outcome, now, deps.timing);
      if (!res) return null;
      const next = await col.replace(cur.id, cur.version, res.email);
      if (res.final) emitSettled(tx, next, res.email, now.toISOString());
      return next;
    });
  } catch (err) {
    alog.error({ err }, 'could not record e-mail attempt outcome');
  }
  if (!stored) {
    alog.warn('e-mail attempt outcome not recorded; the attempt counts as interrupted');
    return 'outcome-dropped';
  }
  if (stored.state === 'sent') {
    alog.info({ smtpResponse: outcome.smtpResponse }, 'e-mail sent');
    return 'sent';
  }
  if (stored.state === 'failed') {
    alog.warn({ error: outcome.error }, 'e-mail failed');
    return 'failed';
  }
  alog.info({ error: outcome.error, nextAttemptAt: stored.nextAttemptAt }, 'e-mail attempt failed; retry scheduled');
  return 'retry-scheduled';
}
